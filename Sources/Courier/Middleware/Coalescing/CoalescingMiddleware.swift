import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Shares one network exchange between identical requests that are in flight at the same time.
///
/// When a screen's three views each ask for `GET /me` as it appears, only one request goes out;
/// each caller gets its own decoded value from the same response. Only safe requests are shared
/// — `GET` and `HEAD`, without a body, whose response the client reads whole (`send`,
/// `response(for:)`, `data(for:)`; never `bytes(for:)`, downloads or event streams). "Identical"
/// means the same method, URL and header fields as they reach this middleware, and the same
/// options for what happens below it (redirect policy, cache policy, size limit, idle timeout),
/// so put it **after** authentication middleware: requests sent with different credentials then
/// differ in their `Authorization` field and never share a response. The cookies the client's
/// ``APIConfiguration/cookieJar`` will add count too, so a request sent after a logout and
/// another login never joins the first user's; cookies a transport adds from a store of its own
/// (URLSession's `HTTPCookieStorage`) are out of its sight — use the client's jar, or
/// ``Scope/requestsThatAsk``, for cookie sessions there. Each caller keeps its own
/// deadline: one that waits fails at its own, and when the caller that leads runs out of time
/// first, a waiter with more time takes over.
///
/// ```swift
/// let client = APIClient(configuration: configuration, transport: transport, middleware: [
///     AuthenticationMiddleware(.bearer(tokens)),
///     CoalescingMiddleware(),            // after authentication: credentials are part of the key
/// ])
/// ```
///
/// The exchange runs in the call of the first caller (with its middleware chain); the others
/// wait for its response. A waiting caller that is cancelled leaves at once and the exchange
/// goes on. If the first caller is cancelled, its exchange stops, and one of the callers still
/// waiting sends the request again for the rest — so nobody is cancelled by someone else's
/// cancellation, and when every caller has been cancelled no exchange is left running. A
/// failure is shared like a response. Nothing is kept once the exchange ends: this is not a
/// cache, and a request sent after the response arrived goes out again.
///
/// Opt in per client by adding the middleware, and per request with
/// ``RequestOptions/coalescesIdenticalRequests`` (`false` keeps a request out of it; with
/// ``Scope/requestsThatAsk`` only requests that set it to `true` are shared). A caller served
/// by an exchange another caller started is logged at `debug` with `courier.coalesced=true`,
/// and counted in ``joinedCount``.
public struct CoalescingMiddleware: Middleware, RoleDeclaringMiddleware {
    /// Which requests the middleware shares.
    public enum Scope: Sendable {
        /// Every eligible request, unless its options set
        /// ``RequestOptions/coalescesIdenticalRequests`` to `false`.
        case everyEligibleRequest
        /// Only eligible requests whose options set ``RequestOptions/coalescesIdenticalRequests``
        /// to `true`.
        case requestsThatAsk
    }

    private let scope: Scope
    /// What the client must know of it: it shares responses when it joins every eligible
    /// request (``Scope/everyEligibleRequest``), not only those that ask.
    package var role: MiddlewareRole {
        if case .everyEligibleRequest = scope { return MiddlewareRole(sharesResponses: true) }
        return MiddlewareRole()
    }
    private let exchanges = InFlightExchanges()

    /// Creates the middleware; one instance per client (instances share nothing).
    public init(scope: Scope = .everyEligibleRequest) {
        self.scope = scope
    }

    /// How many callers so far joined an exchange another caller had started, instead of
    /// sending their own.
    public var joinedCount: Int { exchanges.joinedCount }

    public func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                          next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
        guard isShared(request, body: body, context: context) else {
            return try await next(request, body, context)
        }
        let key = InFlightExchanges.Key(request, context: context)
        switch try await exchanges.join(key, deadline: context.deadline) {
        case .joined(let shared):
            context.logger.debug("joined an identical request in flight", metadata: [
                "http.request.method": "\(request.method.rawValue)",
                "courier.operation": "\(context.operationName)",
                "courier.coalesced": "true",
            ])
            return (shared.head, HTTPBody(shared.body))
        case .lead(let flight):
            do {
                let (head, responseBody) = try await next(request, nil, context)
                let data = try await BodyReading.collect(responseBody, head: head, limit: context.maxResponseSize,
                                                         summary: RequestSummary(request, context: context))
                exchanges.finish(key, flight: flight, with: .success(.init(head: head, body: data)))
                return (head, HTTPBody(data))
            } catch {
                // The leader's own end — its cancellation, or its deadline, which waiters with
                // a later one do not share — passes the exchange on to a waiter.
                if Task.isCancelled || ContinuousClock.now >= context.deadline {
                    exchanges.handOver(key, flight: flight)
                } else {
                    exchanges.finish(key, flight: flight, with: .failure(error))
                }
                throw error
            }
        }
    }

    private func isShared(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) -> Bool {
        guard body == nil, context.collectsResponseBody,
              request.method == .get || request.method == .head else { return false }
        switch (scope, context.options.coalescesIdenticalRequests) {
        case (_, false?): return false
        case (_, true?): return true
        case (.everyEligibleRequest, nil): return true
        case (.requestsThatAsk, nil): return false
        }
    }
}
