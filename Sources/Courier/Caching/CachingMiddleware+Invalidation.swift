import Foundation
import HTTPTypes

/// RFC 9111 §4.4: what an unsafe request that succeeded removes from the store.
extension CachingMiddleware {
    /// RFC 9111 §4.4: after an unsafe request succeeds, drop what is stored for its URL, and for
    /// `Location` and `Content-Location` on the same origin.
    func invalidate(after request: HTTPRequest, response: HTTPResponse, context: RequestContext) async {
        var targets = [request]
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[name],
                  let url = URL(string: value, relativeTo: URL(string: request.urlString))?.absoluteURL,
                  url.scheme?.lowercased() == (request.scheme ?? "https").lowercased(),
                  let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { continue }
            var authority = components.percentEncodedHost ?? ""
            if let port = components.port { authority += ":\(port)" }
            guard authority.lowercased() == (request.authority ?? "").lowercased() else { continue }
            var other = request
            other.path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { other.path! += "?" + query }
            targets.append(other)
        }
        // Every stored GET of these URLs in the namespace, whatever credentials it was keyed
        // with: the unsafe request may carry secrets the GETs did not (a CSRF token), and the
        // resource changed for everyone. The URLs are marked first, so a GET answered before
        // this change and arriving after it is not stored as fresh (requests to other URLs go
        // on being stored: this is no purge).
        let digest = CacheDigest(store: store)
        let urls = Set(targets.map { HTTPCacheKey.url(of: $0, secretNames: context.queryNames, digest: digest) })
        let namespace = self.namespace
        for url in urls { invalidations.invalidate(url, namespace: namespace) }
        await store.invalidateEntries(forURLs: urls) { key in key.namespace == namespace && key.method == "GET" }
    }
}
