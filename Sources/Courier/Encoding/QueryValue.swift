import Foundation

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
