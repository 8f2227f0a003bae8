/// Per-request settings that change how Courier sends one request.
///
/// Every property is optional or has a neutral default, so `RequestOptions()` means "use the
/// client's configuration". Middleware can carry settings of their own through
/// ``RequestOptionKey`` subscripts.
///
/// ```swift
/// var options: RequestOptions {
///     RequestOptions(timeout: .seconds(5), retry: .always, authentication: .none)
/// }
/// ```
public struct RequestOptions: Sendable {
    /// Whether a request may be retried by ``RetryMiddleware``-like middleware.
    public enum RetryBehavior: Sendable, Hashable {
        /// Retry only idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE, TRACE), or any method
        /// that carries an `Idempotency-Key` header.
        case automatic
        /// The caller says this request is safe to retry, whatever its method.
        case always
        /// Never retry this request.
        case never
    }

    /// Whether authentication middleware should authenticate this request.
    public enum Authentication: Sendable, Hashable {
        /// Authenticate as the client is configured to.
        case automatic
        /// Send this request without credentials (login, public endpoints).
        case none
    }

    /// A name for logs, metrics and traces. Default: the request type's name.
    public var operationName: String?
    /// The total time allowed for the exchange, redirects and body included. Default: the
    /// client's ``APIConfiguration/timeout``.
    public var timeout: Duration?
    /// Whether the request may be retried. Default: ``RetryBehavior/automatic``.
    public var retry: RetryBehavior
    /// Whether to authenticate. Default: ``Authentication/automatic``.
    public var authentication: Authentication
    /// Whether the client's base parameters are added. Default: `true`.
    public var includeBaseParameters: Bool
    /// The largest response body accepted, in bytes. Default: the client's
    /// ``APIConfiguration/maxResponseSize``.
    public var maxResponseSize: Int?
    /// Status codes that count as success. Default: the client's
    /// ``APIConfiguration/acceptableStatusCodes``.
    public var acceptableStatusCodes: Set<Int>?
    /// How redirects are followed. Default: the client's ``APIConfiguration/redirectPolicy``.
    public var redirectPolicy: RedirectPolicy?
    /// Whether a request whose path is an absolute URL on another origin than the client's base
    /// URL still gets the configuration's default headers and base parameters, and the
    /// credentials and signatures of Courier's middleware. Default: `false` — a bearer token
    /// meant for your API never reaches a pre-signed storage link or a CDN. Set it only for an
    /// origin you trust with those secrets.
    public var sendsCredentialsToOtherOrigins: Bool = false
    /// Whether the request may share one exchange with identical requests in flight, when the
    /// client has a ``CoalescingMiddleware``: `nil` (the default) follows the middleware's
    /// ``CoalescingMiddleware/Scope``, `false` keeps the request out, `true` opts it in.
    public var coalescesIdenticalRequests: Bool? = nil
    /// How the request uses the HTTP cache, when the client has a ``CachingMiddleware``: `nil`
    /// (the default) follows the middleware's policy.
    public var cachePolicy: CachePolicy? = nil
    /// How long the request may go without progress before it fails with a
    /// ``APIError/Kind/timeout``: waiting for its response head (for a request without a body),
    /// for the next bytes of the response body, or — for a request with a body — for its upload
    /// to move (a `.stream` body's source to yield, the connection to take its bytes), then for
    /// the head after it. An upload's progress is what the transport reports:
    /// Courier's two transports do; a transport of your own cannot yet (the reporting API is not
    /// public), and leaves the upload to ``timeout``.
    /// Default: the client's ``APIConfiguration/idleTimeout`` (none). Use it with a long
    /// ``timeout`` for large uploads and downloads: the total deadline then only bounds the
    /// whole transfer, and a stalled connection fails after `idleTimeout`.
    public var idleTimeout: Duration? = nil

    /// An input error found while the request was built (a header with CR/LF given to a
    /// builder, a bad macro argument), thrown as ``APIError/Kind/encodingFailed`` when it is
    /// sent: builders record it instead of throwing so that they stay chainable. It travels with
    /// the options because every request's options are read once per send anyway; asking the
    /// request for it through a protocol cast would cost a dynamic cast on every send.
    package var deferredEncodingError: (any Error)? = nil

    private var extras: [ObjectIdentifier: any Sendable] = [:]

    /// Creates options; every argument defaults to "as the client is configured".
    public init(
        operationName: String? = nil,
        timeout: Duration? = nil,
        retry: RetryBehavior = .automatic,
        authentication: Authentication = .automatic,
        includeBaseParameters: Bool = true,
        maxResponseSize: Int? = nil,
        acceptableStatusCodes: Set<Int>? = nil,
        redirectPolicy: RedirectPolicy? = nil,
        cachePolicy: CachePolicy? = nil,
        idleTimeout: Duration? = nil
    ) {
        self.operationName = operationName
        self.timeout = timeout
        self.retry = retry
        self.authentication = authentication
        self.includeBaseParameters = includeBaseParameters
        self.maxResponseSize = maxResponseSize
        self.acceptableStatusCodes = acceptableStatusCodes
        self.redirectPolicy = redirectPolicy
        self.cachePolicy = cachePolicy
        self.idleTimeout = idleTimeout
    }

    /// `RequestOptions()`, made once: a request's options are read for every send, and copying
    /// this costs a fifth of initializing a new value field by field.
    static let unset = RequestOptions()

    /// A setting of your own (or of a middleware), keyed by type.
    public subscript<Key: RequestOptionKey>(key: Key.Type) -> Key.Value {
        get { extras[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
        set { extras[ObjectIdentifier(key)] = newValue }
    }
}

/// A key for a custom setting in ``RequestOptions``.
///
/// ```swift
/// enum CacheKey: RequestOptionKey { static let defaultValue = false }
/// options[CacheKey.self] = true
/// ```
public protocol RequestOptionKey {
    /// The type of the setting.
    associatedtype Value: Sendable
    /// The value when the request does not set one.
    static var defaultValue: Value { get }
}
