import HTTPTypes

/// Where a response handed out by ``CachingMiddleware`` came from. Read it from the response
/// head (`HTTPResponse.cacheOutcome`), from ``ResponseMetrics/cacheOutcome``, or
/// in the log line (`courier.cache`).
public enum CacheOutcome: String, Sendable, Hashable, CaseIterable {
    /// Served from the store without contacting the server: the stored response was fresh.
    case hit
    /// Served from the store although it is stale: `stale-while-revalidate` (the store is
    /// refreshed in the background), `stale-if-error` (the server failed), or a
    /// ``CachePolicy`` that accepts any age.
    case stale
    /// The server answered `304 Not Modified` to a conditional request: the stored body is
    /// returned, with the stored status and the refreshed header fields.
    case revalidated
    /// The response came from the server (and was stored if HTTP allows).
    case miss
}

extension HTTPField.Name {
    /// `Courier-Cache`: the ``CacheOutcome`` that ``CachingMiddleware`` adds to the responses it
    /// handles. It exists only in the response Courier hands to you; servers never see it.
    public static let courierCache = HTTPField.Name("Courier-Cache")!
}

extension HTTPResponse {
    /// How ``CachingMiddleware`` answered this response, `nil` when no caching middleware
    /// handled it.
    public var cacheOutcome: CacheOutcome? {
        headerFields.value(of: .courierCache).flatMap(CacheOutcome.init(rawValue:))
    }
}
