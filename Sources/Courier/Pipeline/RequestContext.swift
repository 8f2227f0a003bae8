import Foundation
import HTTPTypes
import Logging

/// What middleware and transports know about the request besides its bytes.
public struct RequestContext: Sendable {
    /// The operation's name: the request type's name, a macro method's name, or
    /// ``RequestOptions/operationName``. Used for logs, metrics and traces.
    public var operationName: String
    /// The client's base URL.
    public var baseURL: URL
    /// The request's options.
    public var options: RequestOptions
    /// The attempt number, from 1; retry middleware increments it.
    public var attempt: Int
    /// When the whole exchange (redirects, retries and body included) must be over.
    public var deadline: ContinuousClock.Instant
    /// The total time allowed, from which ``deadline`` was computed (for error messages). The
    /// initializer clamps it to zero…ten years: `.seconds(Int64.max)` means "no timeout".
    public var timeout: Duration
    /// The largest response body accepted, in bytes.
    public var maxResponseSize: Int
    /// The idle timeout in force (``RequestOptions/idleTimeout``, else the configuration's), or
    /// `nil`. The client enforces it; a transport that holds a small response back to deliver
    /// it in one piece should deliver the head at once when it is set.
    public var idleTimeout: Duration? = nil
    /// The client's logger.
    public var logger: Logger
    /// Whether the client reads the whole response body before returning (`send`,
    /// `response(for:)`, `data(for:)`), rather than handing it to the caller unread
    /// (`stream(_:)`, downloads, events). A transport may then deliver a small body in one piece
    /// once it has arrived instead of streaming it; the default is `false`.
    public var collectsResponseBody: Bool = false
    /// Whether the request goes to the origin (scheme, host and port) of ``baseURL``. A request
    /// whose path is an absolute URL elsewhere — a pre-signed upload link, a CDN URL taken from
    /// a response — does not: the client sends it without the configuration's default headers
    /// and base parameters, and Courier's credential middleware leave it alone (see
    /// ``allowsCredentials``).
    public var targetsBaseOrigin: Bool = true
    /// Whether middleware may add credentials, signatures and base parameters to this request:
    /// it goes to the base URL's origin, or it opted in with
    /// ``RequestOptions/sendsCredentialsToOtherOrigins``. Middleware of your own that add secrets
    /// should check it too.
    public var allowsCredentials: Bool { targetsBaseOrigin || options.sendsCredentialsToOtherOrigins }
    /// Header names whose values are secret besides ``Redaction/sensitiveHeaders`` and the
    /// names that look secret: the client's ``APIConfiguration/sensitiveHeaders`` and the names
    /// middleware add (an API-key header, a signature). Such headers are redacted in logs and
    /// removed when a redirect leaves the origin.
    public var sensitiveHeaders: Set<HTTPField.Name> = []
    /// Header names the client sends only to its base URL's origin — the configuration's
    /// default headers and `Accept-Language` — which a redirect to another origin removes, as it
    /// removes ``sensitiveHeaders`` (a header the request sets itself under such a name goes too).
    package var originOnlyHeaders: Set<HTTPField.Name> = []
    /// Query parameter names whose values are secret besides ``Redaction/QueryNames/standard``:
    /// the client's ``APIConfiguration/sensitiveQueryNames``, and the names middleware add for
    /// the requests below them (an ``AuthenticationMiddleware``'s API key in the query, the
    /// credentials a ``BaseParametersMiddleware`` puts in the query or the body). Errors, logs,
    /// refused redirect locations and cassettes redact them; cache keys hold their values as
    /// digests.
    public var sensitiveQueryNames: Set<String> = []
    /// The secret query names to redact with: the standard ones and ``sensitiveQueryNames``.
    package var queryNames: Redaction.QueryNames {
        sensitiveQueryNames.isEmpty ? .standard : Redaction.QueryNames.standard.adding(sensitiveQueryNames)
    }
    /// Whether middleware added credentials or a signature to the request. A `307`/`308`
    /// redirect to another origin that would resend such a request's body is refused unless
    /// ``RedirectPolicy/allowsCrossOriginBodyRedirects`` is set. Middleware of your own that sign
    /// or authenticate requests should set it.
    public var carriesCredentials: Bool = false

    /// The route template of the request's path, when it is known (OpenTelemetry's
    /// `url.template`): the base URL's path joined with the request's ``RequestPath/template``,
    /// without the query — `/v1/users/{id}`. `nil` for absolute URLs and paths built at run time.
    public var urlTemplate: String?

    /// Whether the client's ``CookieJar`` (``APIConfiguration/cookieJar``) decides which cookies
    /// this request carries and stores those the response sets. A transport with a cookie store
    /// of its own must then neither add cookies nor store `Set-Cookie`, so only one mechanism
    /// decides (`URLSessionTransport` sends such requests through a session of its own without
    /// a cookie store: FoundationNetworking on Linux ignores a request's
    /// `httpShouldHandleCookies`).
    public var usesCookieJar: Bool = false

    /// The client's ``CookieJar``, for middleware that must tell requests apart by the cookies
    /// it will add below them (``CoalescingMiddleware``, ``CachingMiddleware``).
    package var cookieJar: CookieJar?

    /// Watches told of the cookies each hop went out with, by the jar and by a transport with
    /// a cookie store of its own: a middleware that needs to know adds its own
    /// (``CachingMiddleware`` stores no response to a request whose cookies it could not key).
    package var cookieWatches: [CookieWatch] = []

    /// Watches told of every redirect the client follows under this context: a middleware that
    /// needs to know adds its own (``CachingMiddleware`` does not store a response reached
    /// through a redirect under the first URL; ``AuthenticationMiddleware`` does not refresh for
    /// a `401` from another origin).
    package var redirectWatches: [RedirectWatch] = []

    /// What the client and the transport tell each other about this exchange's bodies besides
    /// the bodies themselves: an upload's source and activity, a download's sink, a whole body
    /// left in memory, the body's size limit (see ``BodyChannels``).
    package var bodyChannels = BodyChannels()

    /// Whether middleware may keep calling the next handler after they returned (background
    /// work such as a cache's revalidation). `false` when the chain runs inside a caller that
    /// forbids it: swift-openapi-runtime's middleware, whose `next` must not escape.
    package var allowsBackgroundRequests: Bool = true

    /// The status codes the client accepts for this request: its options', else the
    /// configuration's (merged once, when the exchange starts).
    public var acceptableStatusCodes: Set<Int> = RequestContext.successCodes {
        didSet { acceptsSuccessCodesOnly = false }
    }

    /// Whether ``acceptableStatusCodes`` is known to be 200–299, so that ``accepts(statusCode:)``
    /// compares with the range instead of hashing the code.
    /// Any assignment to the set clears it.
    private var acceptsSuccessCodesOnly = true

    /// Whether the client accepts a response with status `code`
    /// (``acceptableStatusCodes`` contains it).
    package func accepts(statusCode code: Int) -> Bool {
        acceptsSuccessCodesOnly ? (200..<300).contains(code) : acceptableStatusCodes.contains(code)
    }

    /// 200–299, built once rather than a 100-element set built for every request.
    private static let successCodes = Set(200..<300)

    /// Creates a context (transports and middleware get one from the client; tests build their own).
    public init(
        operationName: String,
        baseURL: URL,
        options: RequestOptions = RequestOptions(),
        attempt: Int = 1,
        timeout: Duration = .seconds(60),
        deadline: ContinuousClock.Instant? = nil,
        maxResponseSize: Int = APIConfiguration.defaultMaxResponseSize,
        logger: Logger = APIConfiguration.silentLogger
    ) {
        self.operationName = operationName
        self.baseURL = baseURL
        self.options = options
        self.attempt = attempt
        // A negative timeout is an immediate one; a huge one ("no timeout") is ten years, so
        // no deadline arithmetic below can overflow.
        let timeout = timeout.clampedToLongestWait
        self.timeout = timeout
        self.deadline = deadline ?? .now.advanced(by: timeout)
        self.maxResponseSize = maxResponseSize
        self.logger = logger
    }

    /// The client's context for one exchange, every field set once. (Through the public
    /// initializer and a dozen assignments after it, each field was written twice and the
    /// optional deadline copied three times.)
    ///
    /// `acceptableStatusCodesAreSuccessCodes` says that `acceptableStatusCodes` is 200–299:
    /// the client knows it without comparing the sets (see ``accepts(statusCode:)``).
    package init(
        operationName: String, baseURL: URL, options: RequestOptions, timeout: Duration, maxResponseSize: Int,
        logger: Logger, targetsBaseOrigin: Bool, sensitiveHeaders: Set<HTTPField.Name>,
        originOnlyHeaders: Set<HTTPField.Name>, sensitiveQueryNames: Set<String>, acceptableStatusCodes: Set<Int>,
        acceptableStatusCodesAreSuccessCodes: Bool,
        urlTemplate: String?, idleTimeout: Duration?, collectsResponseBody: Bool, bodyChannels: BodyChannels,
        cookieJar: CookieJar?
    ) {
        let timeout = timeout.clampedToLongestWait
        self.operationName = operationName
        self.baseURL = baseURL
        self.options = options
        self.attempt = 1
        self.timeout = timeout
        self.deadline = ContinuousClock.now.advanced(by: timeout)
        self.maxResponseSize = maxResponseSize
        self.logger = logger
        self.targetsBaseOrigin = targetsBaseOrigin
        self.sensitiveHeaders = sensitiveHeaders
        self.originOnlyHeaders = originOnlyHeaders
        self.sensitiveQueryNames = sensitiveQueryNames
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptsSuccessCodesOnly = acceptableStatusCodesAreSuccessCodes
        self.urlTemplate = urlTemplate
        self.idleTimeout = idleTimeout
        self.collectsResponseBody = collectsResponseBody
        self.bodyChannels = bodyChannels
        self.usesCookieJar = cookieJar != nil
        self.cookieJar = cookieJar
    }

    /// Time left before the deadline (zero when it has passed).
    public var remainingTime: Duration {
        let left = ContinuousClock.now.duration(to: deadline)
        return left < .zero ? .zero : left
    }
}
