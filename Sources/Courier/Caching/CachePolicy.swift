/// How a request uses the HTTP cache of a ``CachingMiddleware``: per client (the middleware's
/// `policy`) and per request (``RequestOptions/cachePolicy``).
///
/// ```swift
/// // Pull to refresh: skip what is stored, store the new answer.
/// var options = RequestOptions()
/// options.cachePolicy = .reloadIgnoringCache
///
/// // Offline screen: whatever is stored, however old, else a 504 error.
/// @GET("/articles") @Options(cachePolicy: .returnCacheDontLoad)
/// func cachedArticles() async throws -> [Article]
/// ```
public enum CachePolicy: Sendable, Hashable {
    /// Follow HTTP (RFC 9111): serve a stored response while it is fresh, revalidate it when it
    /// is stale, honour the request's and the response's `Cache-Control`. The default.
    case useProtocol
    /// Go to the network without looking at the store, and store the response if HTTP allows.
    case reloadIgnoringCache
    /// Serve a stored response whatever its age (marked ``CacheOutcome/stale`` when it is
    /// stale); go to the network only when nothing is stored.
    case returnCacheElseLoad
    /// Serve a stored response whatever its age, and never go to the network: without one the
    /// request fails with `504 Gateway Timeout` (as a request with
    /// `Cache-Control: only-if-cached` does, RFC 9111 §5.2.1.7).
    case returnCacheDontLoad
}
