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

    private let builder: RequestBuilder
    /// The middleware chain over the redirect follower.
    private let handler: HTTPHandler
    /// The redirect follower (over the cookie jar, over the transport): the chain's end, called
    /// directly when there is no middleware and no idle timeout (one async closure less per
    /// request).
    private let follower: RedirectFollower
    /// Whether a middleware in the chain reports cache outcomes (only then is the response's
    /// `Courier-Cache` field looked up for ``ResponseMetrics/cacheOutcome``).
    private let readsCacheOutcome: Bool
    /// A cache or coalescer above a middleware that adds a user's credentials: every request
    /// fails with it.
    private let middlewareOrderError: MiddlewareOrderError?

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
    private func decode<R: APIRequest>(_ request: R, from exchange: Exchange) throws -> R.Response {
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

    /// Sends a request through the middleware and returns the response head and its *unread*
    /// body, with the status checked. The caller streams the body (downloads, events, bytes):
    ///
    /// ```swift
    /// let streamed = try await client.stream(for: Request<Data>(path: "/export"))
    /// if let body = streamed.body {
    ///     for try await chunk in body { try file.write(contentsOf: chunk) }
    /// }
    /// ```
    public func stream<R: APIRequest>(for request: R) async throws -> StreamedResponse {
        let (response, body, summary) = try await openStream(request)
        return StreamedResponse(response: response, body: body, request: summary)
    }

    /// The same as ``stream(for:)``, as a tuple.
    @available(*, deprecated, renamed: "stream(for:)")
    public func stream<R: APIRequest>(_ request: R) async throws -> (HTTPResponse, HTTPBody?, RequestSummary) {
        try await openStream(request)
    }

    /// ``open(_:sink:limitsWholeBody:)`` as a tuple; inlined, so that `stream(for:)` takes as
    /// many async frames as `data(for:)` (one each, before the transport's).
    @inline(__always)
    func openStream<R: APIRequest>(_ request: R) async throws -> (HTTPResponse, HTTPBody?, RequestSummary) {
        let opened = try await open(request)
        return (opened.response, opened.body, opened.summary)
    }

    /// A response whose body is still unread, with the request's options as merged once with
    /// the configuration (downloads, byte streams and event streams read their limits here).
    struct OpenedExchange {
        var response: HTTPResponse
        var body: HTTPBody?
        var summary: RequestSummary
        /// The request's own options (a streamed body is capped only by its own
        /// `maxResponseSize`, not by the configuration's).
        var options: RequestOptions
        /// The timeout in force: the request's, else the configuration's.
        var timeout: Duration
        /// The size limit in force: the request's, else the configuration's.
        var maxResponseSize: Int
    }

    /// `limitsWholeBody`: the request's own size limit applies to its body as a whole (byte
    /// streams), not per part of it (event streams) or not at all (`stream(for:)`).
    @inline(__always)
    func open<R: APIRequest>(_ request: R, sink: ResponseBodySink? = nil, limitsWholeBody: Bool = false) async throws -> OpenedExchange {
        let (prepared, context) = try makeExchange(request, sink: sink, limitsWholeBody: limitsWholeBody)
        do {
            let (head, body, code) = try await exchange(prepared, context: context)
            if !context.accepts(statusCode: code) {
                let data = await BodyReading.consumingPrefix(of: body, limit: BodyReading.errorPrefixLimit)
                throw Self.httpError(head, body: data, summary: prepared.summary)
            }
            return OpenedExchange(response: head, body: body, summary: prepared.summary, options: context.options,
                                  timeout: context.timeout, maxResponseSize: context.maxResponseSize)
        } catch {
            throw Self.map(error, summary: prepared.summary, timeout: context.timeout)
        }
    }

    // MARK: - The exchange

    private struct Exchange {
        var head: HTTPResponse
        var body: Data
        /// The request as it was prepared, moved here whole: copying its summary out of it
        /// retained four strings and released them again with it.
        /// Its request body, sent by now, is released with the exchange, after the response is
        /// decoded rather than before (clearing it here copied the whole value: ≈ 450).
        /// Nothing reads it again.
        var prepared: PreparedRequest
        /// The request, for errors and the decoding context.
        var summary: RequestSummary { prepared.summary }
        /// When the exchange started and its head arrived; read only when it was timed
        /// (`perform(_:timed:)`), placeholders otherwise.
        var startDate: Date
        var start: ContinuousClock.Instant
        var headTime: ContinuousClock.Instant
    }

    /// Prepares the request and its context. `request.options` (often a computed property) is
    /// read once here and merged with the configuration once: every later step reads the
    /// context. The context is complete when it leaves (a copy to set one more field retains
    /// each of its references).
    private func makeExchange<R: APIRequest>(_ request: R, collectsResponseBody: Bool = false,
                                             sink: ResponseBodySink? = nil, limitsWholeBody: Bool = false) throws -> (PreparedRequest, RequestContext) {
        let options = request.wireOptions()
        let name = options.operationName ?? Self.typeName(of: request)
        let prepared = try builder.prepare(request, options: options, operationName: name)
        if let middlewareOrderError { throw APIError.encodingFailed(request: prepared.summary, underlying: middlewareOrderError) }
        let timeout = options.timeout ?? configuration.timeout
        let maxResponseSize = options.maxResponseSize ?? configuration.maxResponseSize
        let acceptableStatusCodes = options.acceptableStatusCodes ?? configuration.acceptableStatusCodes
        let successCodesOnly = options.acceptableStatusCodes == nil && builder.acceptsSuccessCodesOnly
        let idleTimeout = options.idleTimeout ?? configuration.idleTimeout
        let responseBodyLimit = collectsResponseBody ? maxResponseSize : (limitsWholeBody ? options.maxResponseSize : nil)
        // `options` is not read after this line: `consume` moves it into the context instead of
        // copying it (a copy retains each of its references, then the local releases them;
        // without the `consume` the optimizer copied it).
        let context = RequestContext(
            operationName: name, baseURL: configuration.baseURL, options: consume options, timeout: timeout,
            maxResponseSize: maxResponseSize, logger: configuration.logger, targetsBaseOrigin: prepared.targetsBaseOrigin,
            sensitiveHeaders: configuration.sensitiveHeaders, originOnlyHeaders: builder.originOnlyHeaders,
            sensitiveQueryNames: configuration.sensitiveQueryNames, acceptableStatusCodes: acceptableStatusCodes,
            acceptableStatusCodesAreSuccessCodes: successCodesOnly,
            urlTemplate: prepared.urlTemplate, idleTimeout: idleTimeout, collectsResponseBody: collectsResponseBody,
            // Where a transport that holds the whole body leaves it for `perform`.
            bodyChannels: BodyChannels(responseSink: sink, wholeResponse: collectsResponseBody ? WholeResponseBody() : nil,
                                       responseLimit: responseBodyLimit),
            cookieJar: configuration.cookieJar)
        return (prepared, context)
    }

    /// Sends `request` and collects its body; `timed` reads the clocks ``ResponseMetrics`` needs
    /// (three clock reads and a `Date` per request, skipped when nothing reports them).
    ///
    /// Inlined into its three callers: one async frame less per request (its allocation, and
    /// the executor check on entry).
    @inline(__always)
    private func perform<R: APIRequest>(_ request: R, timed: Bool) async throws -> Exchange {
        let startDate = timed ? Date() : Date(timeIntervalSinceReferenceDate: 0)
        let start = timed ? ContinuousClock.now : Self.untimed
        let (prepared, context) = try makeExchange(request, collectsResponseBody: true)
        let whole = context.bodyChannels.wholeResponse
        let head: HTTPResponse
        let data: Data
        let headTime: ContinuousClock.Instant
        do {
            let (responseHead, body, code) = try await exchange(prepared, context: context)
            headTime = timed ? .now : Self.untimed
            head = responseHead
            guard context.accepts(statusCode: code) else {
                // Read up to the size limit, never past it, and never failing on it: an error
                // page larger than `maxResponseSize` still reports its status.
                let prefix = await BodyReading.consumingPrefix(of: body, limit: context.maxResponseSize)
                try Task.checkCancellation()   // a caller that gave up meanwhile gets its cancellation
                throw Self.httpError(responseHead, body: prefix, summary: prepared.summary)
            }
            if let taken = try BodyReading.takeWhole(body, limit: context.maxResponseSize, summary: prepared.summary, whole: whole) {
                data = taken
            } else {
                // Nothing was left whole for this body (`takeWhole` looked): read it.
                data = try await BodyReading.collect(body, head: responseHead, limit: context.maxResponseSize, summary: prepared.summary)
            }
        } catch {
            throw Self.map(error, summary: prepared.summary, timeout: context.timeout)
        }
        return Exchange(head: head, body: data, prepared: consume prepared, startDate: startDate, start: start, headTime: headTime)
    }

    /// `prepared` through the middleware, the redirect follower and the transport: the response
    /// head, its body and its status code (read once).
    @inline(__always)
    private func exchange(_ prepared: PreparedRequest, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?, Int) {
        if middleware.isEmpty && context.idleTimeout == nil {
            return try await follower.sendReadingStatus(prepared.head, body: prepared.body, context: context)
        }
        let (head, body) = try await handler(prepared.head, prepared.body, context)
        return (head, body, head.status.code)
    }

    /// The instant an untimed exchange records (never read).
    private static let untimed = ContinuousClock.Instant.now

    /// Sends through `follower` with an idle timeout: the follower bounds each hop's wait for
    /// its head and each redirect's body it drains; here each wait for the next bytes of the
    /// final response body is bounded.
    private static func sendWatchingIdleTime(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext, limit: Duration,
                                             follower: RedirectFollower) async throws -> (HTTPResponse, HTTPBody?) {
        let (head, responseBody) = try await follower.send(request, body: body, context: context)
        return (head, responseBody.map { IdleTimeout.wrap($0, limit: limit) })
    }

    /// The request type's name, the operation name when the options give none.
    private static func typeName<R: APIRequest>(of request: R) -> String {
        // `_typeName(_:qualified: false)` is what `String(describing:)` prints for a type, without
        // the three dynamic protocol-conformance casts `String(describing:)` tries first.
        _typeName(R.self, qualified: false)
    }

    /// A summary of `head` for an error, redacting the configuration's secret query names too
    /// (`RequestSummary(head)` knows only the standard ones).
    func summary(of head: HTTPRequest, operationName: String? = nil) -> RequestSummary {
        builder.summary(of: head, operationName: operationName)
    }

    static func httpError(_ head: HTTPResponse, body: Data, summary: RequestSummary) -> APIError {
        .httpError(statusCode: head.status.code, message: ResponseErrorMessage.extract(from: body, head: head) ?? head.status.reasonPhrase,
                   response: head, body: body, request: summary)
    }

    /// Maps anything thrown below the client to ``APIError`` (or `CancellationError`).
    static func map(_ error: any Error, summary: RequestSummary, timeout: Duration) -> any Error {
        switch error {
        case let error as APIError: return error
        case is CancellationError: return error
        case let error as TransportError:
            if let idle = error.underlying as? IdleTimeout.Expired, !Task.isCancelled {
                return APIError.timeout(request: summary, after: idle.limit, waitingFor: "with nothing received (idle timeout)")
            }
            if error.kind == .cancelled { return Task.isCancelled ? CancellationError() : APIError.cancelled(request: summary) }
            if Task.isCancelled { return CancellationError() }
            if error.kind == .timeout {
                // A limit of the transport's own (a client's read timeout) is not the deadline.
                if let limit = error.timeLimit { return APIError.timeout(request: summary, after: limit, waitingFor: "— \(error.message)") }
                return APIError.timeout(request: summary, after: timeout)
            }
            // This machine's disk, not the network: an app must not show "offline" or retry.
            if error.kind == .localFile { return APIError.unknown(request: summary, underlying: error) }
            return APIError.network(request: summary, underlying: error)
        case let error as RedirectError: return APIError.network(request: summary, underlying: error)
        case let error as URLError:
            // From a body an adapted transport streams, a middleware of your own…: what
            // URLSessionTransport reports as a TransportError.
            return map(TransportError(error), summary: summary, timeout: timeout)
        case let error as AuthenticationError:
            if Task.isCancelled { return CancellationError() }
            if error.kind == .timedOut, let hung = error.underlying as? TokenRefreshTimeout {
                // A hung token provider: the request ends when the refresh's own limit passes.
                return APIError.timeout(request: summary, after: hung.limit, waitingFor: hung.operation)
            }
            return APIError.authentication(request: summary, underlying: error)
        case let error as InvalidHeaderError: return APIError.encodingFailed(request: summary, underlying: error)
        case let error as BodyLimitExceeded: return APIError.resourceTooLarge(request: summary, limit: error.limit)
        default:
            if Task.isCancelled { return CancellationError() }
            return APIError.unknown(request: summary, underlying: error)
        }
    }
}
