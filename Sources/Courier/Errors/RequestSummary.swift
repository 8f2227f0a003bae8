import HTTPTypes

/// What an error says about the request that failed: enough to find it in logs, nothing secret.
///
/// The URL never carries `user:password`, and the values of query parameters whose names look
/// like secrets (`api_key`, `token`, `signature`, `password`…) are replaced with `<redacted>`.
public struct RequestSummary: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP method, e.g. `GET`.
    public var method: String
    /// The absolute URL, with secrets redacted.
    public var url: String
    /// The operation name (the request type's name or a macro method's name), when known.
    public var operationName: String?

    /// Creates a summary from its parts. `url` is used as given: redact it first.
    public init(method: String, url: String, operationName: String? = nil) {
        self.method = method
        self.url = url
        self.operationName = operationName
    }

    /// Creates a summary of an `HTTPRequest`, redacting secret query values.
    public init(_ request: HTTPRequest, operationName: String? = nil) {
        self.method = request.method.rawValue
        let target = request.path ?? "/"
        // Most targets have no query: skip the redaction's grapheme-cluster search for them.
        let shown = target.containsByte(UInt8(ascii: "?")) ? Redaction.redactQuery(inTarget: target) : target
        // One interpolation, not the origin's text and then a concatenation (one string less per request).
        self.url = "\(request.scheme ?? "https")://\(request.authority ?? "")\(shown)"
        self.operationName = operationName
    }

    /// A summary of a request inside a middleware or transport, redacting the standard secret
    /// query names and the client's own (``RequestContext/sensitiveQueryNames``).
    package init(_ request: HTTPRequest, context: RequestContext) {
        self.init(request, operationName: context.operationName)
        if !context.sensitiveQueryNames.isEmpty {
            url = request.originString + context.queryNames.redact(target: request.path ?? "/")
        }
    }

    /// `GET https://api.example.com/v1/users?page=2`
    public var description: String { "\(method) \(url)" }
}
