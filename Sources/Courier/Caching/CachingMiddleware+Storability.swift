import Foundation
import HTTPTypes

/// What may be stored: RFC 9111 §3 and the rules Courier adds (no redirects, no response that
/// varies on cookies a jar adds below).
extension CachingMiddleware {
    /// The response's `Vary` when the response may and should be stored; `nil` otherwise.
    func storableVary(_ head: HTTPResponse, request: HTTPRequest, requestControl: CacheControl, context: RequestContext,
                      requestDate: Date, responseDate: Date) -> CacheVary? {
        let code = head.status.code
        // A head past the limit every transport enforces came from elsewhere (a transport of
        // your own, middleware): not kept, so a hit can always add its own fields.
        guard head.headerFields.count <= HTTPFields.responseFieldLimit else { return nil }
        // No redirect: this middleware sits above the client's redirect following, so it sees one
        // only when a request follows none, and a stored one would be served unfollowed to
        // requests that do.
        guard !requestControl.noStore, (200..<600).contains(code), code != 206, !(300..<400).contains(code) else { return nil }
        let control = CacheControl(head.headerFields)
        guard !control.noStore else { return nil }
        let explicit = control.maxAge != nil || head.headerFields.has(.expires)
        guard explicit || CacheFreshness.heuristicallyCacheableStatuses.contains(code) || control.isPublic || control.isPrivate else {
            return nil
        }
        let vary = CacheVary(head.headerFields)
        guard vary.isStorable else { return nil }
        // Cookies a client's jar or a transport's own cookie store (URLSession's) add below this
        // middleware are out of any Vary's sight: a guest's page must not be served after login.
        // Only a request that carries its own `Cookie` here, and no jar, is told apart.
        if vary.names.contains("cookie"), context.usesCookieJar || !request.headerFields.has(.cookie) { return nil }
        // Worth keeping: fresh for a while, revalidatable, or usable stale.
        let probe = CachedHTTPResponse(key: HTTPCacheKey(namespace: "", method: "", url: "", credentials: nil), response: head,
                                       body: Data(), requestDate: requestDate, responseDate: responseDate)
        let freshness = CacheFreshness(of: probe, cacheControl: control, now: responseDate, maxHeuristicLifetime: maxHeuristicSeconds)
        let hasValidator = head.headerFields.has(.eTag) || head.headerFields.has(.lastModified)
        guard freshness.isFresh || hasValidator || control.staleIfError != nil || control.staleWhileRevalidate != nil else { return nil }
        return vary
    }
}
