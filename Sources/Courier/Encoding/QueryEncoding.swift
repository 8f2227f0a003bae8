import Foundation

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
