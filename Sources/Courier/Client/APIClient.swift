import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Sends requests through a chain of middleware and a transport, and decodes the responses.
///
/// Create one client per API and keep it: it holds the parsed configuration and the middleware
/// chain, and its transport holds the connection pool.
///
/// ```swift
/// let client = APIClient(
///     configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/v1")!),
///     transport: AsyncHTTPClientTransport(),
///     middleware: [LoggingMiddleware(logger: logger), RetryMiddleware()]
/// )
/// let user = try await client.send(GetUser(id: "42"))
/// ```
///
/// Every request, whether an ``APIRequest`` struct, a ``Request`` value or a macro-generated
/// method, takes the same path: build → middleware → redirects → transport → status check →
/// size-limited body → decode. (An error status is reported with the start of its body, read up
/// to the size limit: an error page larger than the limit is still an `httpError`.)
public final class APIClient: Sendable {
    /// The configuration the client was created with.
    public let configuration: APIConfiguration
    /// The transport that moves the bytes.
    public let transport: any Transport
    /// The middleware, outermost first.
    public let middleware: [any Middleware]

    let builder: RequestBuilder
    /// The middleware chain over the redirect follower.
    let handler: HTTPHandler
    /// The redirect follower (over the cookie jar, over the transport): the chain's end, called
    /// directly when there is no middleware and no idle timeout (one async closure less per
    /// request).
    let follower: RedirectFollower
    /// Whether a middleware in the chain reports cache outcomes (only then is the response's
    /// `Courier-Cache` field looked up for ``ResponseMetrics/cacheOutcome``).
    let readsCacheOutcome: Bool
    /// A cache or coalescer above a middleware that adds a user's credentials: every request
    /// fails with it.
    let middlewareOrderError: MiddlewareOrderError?

    /// Creates a client.
    ///
    /// The name of a query item that an ``AuthenticationMiddleware`` in `middleware` sends an API
    /// key under, and the names of the fixed credentials a ``BaseParametersMiddleware`` puts in
    /// the query or the body, are added to the configuration's
    /// ``APIConfiguration/sensitiveQueryNames``: a server that echoes the query in a next-page
    /// link puts them into the page request's target, where errors and middleware above the
    /// middleware that adds them see it.
    ///
    /// A ``CachingMiddleware`` or ``CoalescingMiddleware`` above any middleware that adds a
    /// signed-in user's credentials (an ``AuthenticationMiddleware`` with tokens, a
    /// ``BaseParametersMiddleware`` for ``BaseParametersMiddleware/Scope/credentials``) would
    /// share one user's responses with another: every request of such a client fails with
    /// ``MiddlewareOrderError``.
    public init(configuration: APIConfiguration, transport: any Transport, middleware: [any Middleware] = []) {
        var configuration = configuration
        // The client knows its middleware only by their roles (see MiddlewareRole).
        let roles = middleware.map(\.declaredRole)
        for role in roles { configuration.sensitiveQueryNames.formUnion(role.secretQueryNames) }
        self.configuration = configuration
        self.transport = transport
        self.middleware = middleware
        self.builder = RequestBuilder(configuration: configuration)
        self.readsCacheOutcome = roles.contains { $0.reportsCacheOutcome }
        self.middlewareOrderError = MiddlewareOrderError.check(middleware)
        // The cookie jar sits under the redirect follower, so it sees every hop.
        let wire: any Transport = configuration.cookieJar.map { CookieJarTransport(base: transport, jar: $0) } ?? transport
        let follower = RedirectFollower(transport: wire, defaultPolicy: configuration.redirectPolicy)
        self.follower = follower
        var handler: HTTPHandler = { request, body, context in
            guard let idle = context.idleTimeout else { return try await follower.send(request, body: body, context: context) }
            return try await Self.sendWatchingIdleTime(request, body: body, context: context, limit: idle, follower: follower)
        }
        for layer in middleware.reversed() {
            let next = handler
            handler = { request, body, context in
                try await layer.intercept(request, body: body, context: context, next: next)
            }
        }
        self.handler = handler
    }

    /// Sends a request and returns its decoded response.
    ///
    /// - Throws: ``APIError`` for every failure, or `CancellationError` when the task is cancelled.
    public func send<R: APIRequest>(_ request: R) async throws -> R.Response {
        // The same exchange as `response(for:)`, without what only its `Response` reports: no
        // clock is read and no `Response<R.Response>` is built (its generic metadata is looked
        // up at run time for every request type: `send` is not specialized for the caller's).
        let exchange = try await perform(request, timed: false)
        return try decode(request, from: exchange)
    }

    /// Sends a request and returns the decoded value with the HTTP response, the raw body and timing.
    public func response<R: APIRequest>(for request: R) async throws -> Response<R.Response> {
        let exchange = try await perform(request, timed: true)
        let value = try decode(request, from: exchange)
        let end = ContinuousClock.now
        let metrics = ResponseMetrics(startDate: exchange.startDate, timeToResponse: exchange.start.duration(to: exchange.headTime),
                                      duration: exchange.start.duration(to: end), responseBytes: exchange.body.count,
                                      cacheOutcome: readsCacheOutcome ? exchange.head.cacheOutcome : nil)
        return Response(value: value, response: exchange.head, body: exchange.body, request: exchange.summary, metrics: metrics)
    }

    /// Sends a request and returns the response head and the raw body, without decoding. The
    /// status is still checked against the acceptable codes.
    ///
    /// Like every tuple Courier returns, the head comes first: `let (response, data) = …`.
    public func data<R: APIRequest>(for request: R) async throws -> (HTTPResponse, Data) {
        let exchange = try await perform(request, timed: false)
        return (exchange.head, exchange.body)
    }

    /// The exchange's body decoded by the request; any failure but an ``APIError`` of the
    /// request's own is reported as ``APIError/Kind/decodingFailed``.
    func decode<R: APIRequest>(_ request: R, from exchange: Exchange) throws -> R.Response {
        do {
            return try request.decode(exchange.head, body: exchange.body, context: DecodingContext(decoder: configuration.decoder, request: exchange.summary))
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.decodingFailed(request: exchange.summary, type: String(describing: R.Response.self), underlying: error, body: exchange.body)
        }
    }

    /// Builds a request without sending it: the `HTTPRequest` head as the transport would get it
    /// before middleware run. Useful in tests and for debugging.
    public func prepare<R: APIRequest>(_ request: R) throws -> (HTTPRequest, HTTPBody?) {
        let options = request.wireOptions()
        let prepared = try builder.prepare(request, options: options, operationName: options.operationName ?? Self.typeName(of: request))
        return (prepared.head, prepared.body)
    }

    /// The request as a `curl` command, as the client builds it — with the client's default
    /// headers and base parameters, but before middleware run (headers that middleware add,
    /// such as `Authorization` from ``AuthenticationMiddleware`` or a signature, are not in it;
    /// ``LoggingMiddleware`` with ``LoggingMiddleware/Style/verbose`` prints the command as the
    /// request reaches it — put it last to see what the other middleware added). Secrets are
    /// redacted unless `revealingSecrets` is `true`.
    ///
    /// A body that is in memory (JSON, form, data) is included up to 1 MiB; a larger one, and a
    /// file, multipart or stream body, is described in a trailing comment, not read.
    public func curlCommand<R: APIRequest>(for request: R, revealingSecrets: Bool = false) async throws -> CurlCommand {
        let (head, body) = try prepare(request)
        var data: Data?
        var note: String?
        if let body {
            // Only bodies held in memory are read; files, multipart forms and streams are not.
            switch try request.wireBody() {
            case .json?, .data?, .form?:
                do {
                    // A body of known length over the limit is refused before a byte is read.
                    data = try await BodyReading.collect(body, head: HTTPResponse(status: .ok), limit: CurlCommand.maxPastedBodySize)
                } catch is BodyLimitExceeded {
                    if case .known(let length) = body.length {
                        note = "body of \(length) bytes not shown (over 1 MiB)"
                    } else {
                        note = "body over 1 MiB not shown"
                    }
                }
            default: note = "streamed body not shown"
            }
        }
        return CurlCommand(head, body: data, revealingSecrets: revealingSecrets,
                           sensitiveHeaders: configuration.sensitiveHeaders,
                           sensitiveQueryNames: configuration.sensitiveQueryNames, note: note)
    }
}
