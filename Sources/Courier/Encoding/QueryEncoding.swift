import Foundation

/// How arrays are written in a query string.
public enum ArrayQueryStyle: Sendable, Hashable {
    /// `tag=a&tag=b` (the default).
    case repeatedKeys
    /// `tag[]=a&tag[]=b`.
    case brackets
    /// `tag=a,b`.
    case commaSeparated
}

/// A value that can be written into a query string.
public protocol QueryValue: Sendable {
    /// The value's strings: one for a scalar, several for an array, none for `nil`.
    var queryStrings: [String] { get }
    /// Whether the value is a list (written as ``ArrayQueryStyle`` says). Default: `false`.
    var isQueryList: Bool { get }
}

extension QueryValue {
    public var isQueryList: Bool { false }
}

extension String: QueryValue { public var queryStrings: [String] { [self] } }
extension Substring: QueryValue { public var queryStrings: [String] { [String(self)] } }
extension Int: QueryValue { public var queryStrings: [String] { [String(self)] } }
extension Int64: QueryValue { public var queryStrings: [String] { [String(self)] } }
extension Double: QueryValue { public var queryStrings: [String] { [String(self)] } }
extension Bool: QueryValue { public var queryStrings: [String] { [self ? "true" : "false"] } }
extension Int32: QueryValue { public var queryStrings: [String] { [String(self)] } }
extension UInt: QueryValue { public var queryStrings: [String] { [String(self)] } }
extension UInt64: QueryValue { public var queryStrings: [String] { [String(self)] } }
extension Float: QueryValue { public var queryStrings: [String] { [String(self)] } }
extension Decimal: QueryValue { public var queryStrings: [String] { ["\(self)"] } }
extension UUID: QueryValue { public var queryStrings: [String] { [uuidString] } }
extension Date: QueryValue {
    /// ISO 8601 with fractional seconds when there are any, in UTC: `2026-11-23T14:05:00Z`.
    public var queryStrings: [String] {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: timeIntervalSince1970.rounded() != timeIntervalSince1970)
        return [formatted(style)]
    }
}
extension Optional: QueryValue where Wrapped: QueryValue {
    public var queryStrings: [String] { self?.queryStrings ?? [] }
    public var isQueryList: Bool { self?.isQueryList ?? false }
}
extension Array: QueryValue where Element: QueryValue {
    public var queryStrings: [String] { flatMap(\.queryStrings) }
    public var isQueryList: Bool { true }
}

extension Array where Element == URLQueryItem {
    /// Query items from ordered pairs; `nil` values are left out and arrays follow `arrays`.
    ///
    /// ```swift
    /// var query: [URLQueryItem] {
    ///     .query([("page", page), ("q", search), ("tag", ["swift", "http"])], arrays: .brackets)
    /// }
    /// ```
    public static func query(_ pairs: [(String, any QueryValue)], arrays: ArrayQueryStyle = .repeatedKeys) -> [URLQueryItem] {
        var items: [URLQueryItem] = []
        for (name, value) in pairs {
            let strings = value.queryStrings
            if !value.isQueryList {
                if let first = strings.first { items.append(URLQueryItem(name: name, value: first)) }
                continue
            }
            switch arrays {
            case .repeatedKeys: items += strings.map { URLQueryItem(name: name, value: $0) }
            case .brackets: items += strings.map { URLQueryItem(name: name + "[]", value: $0) }
            case .commaSeparated: if !strings.isEmpty { items.append(URLQueryItem(name: name, value: strings.joined(separator: ","))) }
            }
        }
        return items
    }
}

/// Writes query strings with RFC 3986 encoding: names and values keep only unreserved
/// characters, so `&`, `=`, `+`, `#`, `;`, `,`, space and non-ASCII are all percent-encoded.
package enum QueryEncoding {
    /// The query text for a value Courier only knows as `Any` (a macro method's parameter): a
    /// ``QueryValue``'s own text (lists comma-separated), the raw value of a `RawRepresentable`,
    /// nested optionals unwrapped (`nil` for none), `description` otherwise. The one rule
    /// behind `URLQueryItem(name:value:)`, `[URLQueryItem].query(_:arrays:)` and the macros.
    package static func text(of value: Any) -> String? {
        if let optional = value as? any OptionalValue { return optional.wrappedValue.flatMap(text(of:)) }
        if let value = value as? any QueryValue {
            let strings = value.queryStrings
            return strings.isEmpty ? nil : strings.joined(separator: ",")
        }
        if let raw = value as? any RawRepresentable { return text(of: raw.rawValue) }
        return String(describing: value)
    }

    /// `a=1&b=x%20y` — items with a `nil` value are left out, order is kept.
    package static func encode(_ items: [URLQueryItem]) -> String {
        var out = ""
        for item in items {
            guard let value = item.value else { continue }
            if !out.isEmpty { out += "&" }
            out += PercentEncoding.encode(item.name, allowing: .unreserved)
            out += "="
            out += PercentEncoding.encode(value, allowing: .unreserved)
        }
        return out
    }
}

/// Writes `application/x-www-form-urlencoded` bodies as the WHATWG URL standard does: space as
/// `+`, everything but `*-._` and alphanumerics percent-encoded.
package enum FormEncoding {
    private static let allowed = PercentEncoding.Allowed(extra: "*")

    /// `name=Ada+Lovelace&lang=en` for the given pairs, in order.
    package static func encode(_ pairs: [(String, String)]) -> String {
        var out = ""
        for (name, value) in pairs {
            if !out.isEmpty { out += "&" }
            out += PercentEncoding.encode(name, allowing: allowed, spaceAsPlus: true)
            out += "="
            out += PercentEncoding.encode(value, allowing: allowed, spaceAsPlus: true)
        }
        return out
    }
}
