import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The one exchange every request takes, whatever the caller asked for (a decoded value, the
/// raw body, a stream, a download): the context made once from the request and the
/// configuration, the middleware chain, the redirect follower and the transport, the status
/// check, and the mapping of every failure to an ``APIError``.
extension APIClient {
    struct Exchange {
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
    func makeExchange<R: APIRequest>(_ request: R, collectsResponseBody: Bool = false,
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
    func perform<R: APIRequest>(_ request: R, timed: Bool) async throws -> Exchange {
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
    func exchange(_ prepared: PreparedRequest, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?, Int) {
        if middleware.isEmpty && context.idleTimeout == nil {
            return try await follower.sendReadingStatus(prepared.head, body: prepared.body, context: context)
        }
        let (head, body) = try await handler(prepared.head, prepared.body, context)
        return (head, body, head.status.code)
    }

    /// The instant an untimed exchange records (never read).
    static let untimed = ContinuousClock.Instant.now

    /// Sends through `follower` with an idle timeout: the follower bounds each hop's wait for
    /// its head and each redirect's body it drains; here each wait for the next bytes of the
    /// final response body is bounded.
    static func sendWatchingIdleTime(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext, limit: Duration,
                                             follower: RedirectFollower) async throws -> (HTTPResponse, HTTPBody?) {
        let (head, responseBody) = try await follower.send(request, body: body, context: context)
        return (head, responseBody.map { IdleTimeout.wrap($0, limit: limit) })
    }

    /// The request type's name, the operation name when the options give none.
    static func typeName<R: APIRequest>(of request: R) -> String {
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
