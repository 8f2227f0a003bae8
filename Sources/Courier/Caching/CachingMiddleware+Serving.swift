import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Serving from the store: the lookup, the freshness rules that let a stored response answer
/// without the network, and the answers made of an entry (or of its absence).
extension CachingMiddleware {
    /// What the client must know of it: it shares one request's response with others, and it
    /// marks responses with `Courier-Cache` for ``ResponseMetrics/cacheOutcome``.
    package var role: MiddlewareRole { MiddlewareRole(sharesResponses: true, reportsCacheOutcome: true) }

    /// The stored entry under `key`; an entry whose head holds more fields than a response may
    /// have (``HTTPFields/responseFieldLimit``: one put in the store by hand, a tampered or
    /// older store) is a miss, and is removed, so that serving it can never reach
    /// `HTTPFields`' capacity.
    func entry(for key: HTTPCacheKey) async -> CachedHTTPResponse? {
        guard let found = await store.entry(for: key) else { return nil }
        guard found.response.headerFields.count <= HTTPFields.responseFieldLimit else {
            await store.removeEntry(for: key)
            return nil
        }
        return found
    }

    /// `nil` when the stored response needs validation; else how it is served.
    static func servesWithoutValidation(_ freshness: CacheFreshness, request: CacheControl, response: CacheControl) -> CacheOutcome? {
        if response.noCache || request.noCache || request.maxAge == 0 { return nil }
        if let maxAge = request.maxAge, freshness.age > TimeInterval(maxAge) { return nil }
        if let minFresh = request.minFresh, freshness.lifetime - freshness.age < TimeInterval(minFresh) { return nil }
        if freshness.isFresh { return .hit }
        if let maxStale = request.maxStale, !response.mustRevalidate, freshness.staleness <= TimeInterval(maxStale) { return .stale }
        return nil
    }

    func serve(_ entry: CachedHTTPResponse, freshness: CacheFreshness, outcome: CacheOutcome,
                       context: RequestContext) -> (HTTPResponse, HTTPBody?) {
        var head = entry.response
        head.headerFields.replace(with: [
            HTTPField(name: .age, value: String(Int(min(freshness.age, TimeInterval(CacheControl.largestDeltaSeconds))))),
            HTTPField(name: .courierCache, value: outcome.rawValue),
        ])
        log(outcome, entry.key, context: context)
        return (head, HTTPBody(entry.bytes))
    }

    /// The `504` of a request that may not go to the network and finds nothing usable stored.
    func unavailable(_ request: HTTPRequest, context: RequestContext) -> (HTTPResponse, HTTPBody?) {
        let url = context.queryNames.redact(url: request.urlString)
        let message = "no usable cached response for GET \(url), and the cache policy (or only-if-cached) forbids the network"
        let body = (try? JSONSerialization.data(withJSONObject: ["message": message])) ?? Data()
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.courierCache] = CacheOutcome.miss.rawValue
        context.logger.debug("no usable cached response", metadata: [
            "courier.operation": "\(context.operationName)", "courier.cache": "unavailable",
        ])
        return (HTTPResponse(status: .gatewayTimeout, headerFields: fields), HTTPBody(body))
    }
}
