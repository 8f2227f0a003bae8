import HTTPTypes

/// What an error says about the request that failed: enough to find it in logs, nothing secret.
///
/// The URL never carries `user:password`, and the values of query parameters whose names look
/// like secrets (`api_key`, `token`, `signature`, `password`…) are replaced with `<redacted>`.
public struct RequestSummary: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP method, e.g. `GET`.
    public var method: String
    /// The absolute URL, with secrets redacted.
    public var url: String {
        get { origin.isEmpty ? target : origin + target }
        set {
            origin = ""
            target = newValue
        }
    }
    /// The operation name (the request type's name or a macro method's name), when known.
    public var operationName: String?

    /// The URL in two parts, `scheme://authority` (or empty) and the rest, joined when ``url``
    /// is read. Every request gets a summary and most are never read (they are for errors and
    /// logs): joining them up front was one string allocation and copy per request.
    private var origin: String
    private var target: String

    /// Creates a summary from its parts. `url` is used as given: redact it first.
    public init(method: String, url: String, operationName: String? = nil) {
        self.method = method
        self.origin = ""
        self.target = url
        self.operationName = operationName
    }

    /// A summary whose URL is `origin` followed by `target` (both redacted already), joined
    /// only when read.
    package init(method: String, origin: String, target: String, operationName: String? = nil) {
        self.method = method
        self.origin = origin
        self.target = target
        self.operationName = operationName
    }

    /// Creates a summary of an `HTTPRequest`, redacting secret query values.
    public init(_ request: HTTPRequest, operationName: String? = nil) {
        self.method = request.method.rawValue
        let target = request.path ?? "/"
        // Most targets have no query: skip the redaction's grapheme-cluster search for them.
        let shown = target.containsByte(UInt8(ascii: "?")) ? Redaction.redactQuery(inTarget: target) : target
        self.origin = request.originString
        self.target = shown
        self.operationName = operationName
    }

    /// A summary of a request inside a middleware or transport, redacting the standard secret
    /// query names and the client's own (``RequestContext/sensitiveQueryNames``).
    package init(_ request: HTTPRequest, context: RequestContext) {
        self.init(request, operationName: context.operationName)
        if !context.sensitiveQueryNames.isEmpty {
            url = request.urlString(redactingQuery: context.queryNames)
        }
    }

    /// `GET https://api.example.com/v1/users?page=2`
    public var description: String { "\(method) \(url)" }

    /// Two summaries are equal when their method, URL and operation name are, however their
    /// URL was put together.
    public static func == (lhs: RequestSummary, rhs: RequestSummary) -> Bool {
        lhs.method == rhs.method && lhs.operationName == rhs.operationName && lhs.url == rhs.url
    }

    /// Hashes the method, the URL and the operation name, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(operationName)
    }
}
