import HTTPTypes

/// A type that can be an ``APIRequest``'s header fields: ``RequestHeaders`` (the default),
/// swift-http-types' `HTTPFields`, or — as requests written for other clients often declare
/// them — `[String: String]` and `[String: String]?`. Names and values are checked as
/// ``Request/header(_:_:)`` checks them (CR, LF or NUL fail the request before it is sent),
/// except in `HTTPFields`, which turns those characters into spaces as they are set.
public protocol RequestHeadersConvertible: Sendable {
    /// The fields to send. Throws ``InvalidHeaderError`` for a name or value that is not valid.
    func headerFields() throws -> HTTPFields
}

extension HTTPFields: RequestHeadersConvertible {
    /// The fields themselves (already cleaned by swift-http-types: CR, LF and NUL became spaces).
    public func headerFields() -> HTTPFields { self }
}

extension Dictionary: RequestHeadersConvertible where Key == String, Value == String {
    /// The pairs as fields, in name order (a dictionary has no order of its own), each checked.
    public func headerFields() throws -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in sorted(by: { $0.key < $1.key }) {
            fields.append(try HeaderValidation.field(name: name, value: value))
        }
        return fields
    }
}

extension Optional: RequestHeadersConvertible where Wrapped: RequestHeadersConvertible {
    /// The wrapped fields, or none.
    public func headerFields() throws -> HTTPFields { try self?.headerFields() ?? HTTPFields() }
}
