/// A request property whose type Courier cannot send — reported instead of ignoring it.
///
/// It arrives as the underlying error of an ``APIError`` of kind
/// ``APIError/Kind/encodingFailed``:
///
/// ```
/// Could not encode GET https://api.example.com/v1/users: SearchUsers.headers is a Dictionary<String, Int>, which Courier cannot send as header fields; declare HTTPFields or [String: String]
/// ```
public struct RequestDeclarationError: Error, Sendable, CustomStringConvertible {
    /// The request type's name.
    public var requestType: String
    /// The property: `method`, `headers`, `body`, `queryItems`, `queryParameters` or `timeout`.
    public var property: String
    /// Why its value cannot be sent, and what to declare instead.
    public var reason: String

    /// Creates the error.
    public init(requestType: String, property: String, reason: String) {
        self.requestType = requestType
        self.property = property
        self.reason = reason
    }

    /// `Type.property` and the reason, on one line.
    public var description: String { "\(requestType).\(property) \(reason)" }
}
