import Foundation
import HTTPTypes

extension HTTPCacheKey {
    /// The key of `request` in `namespace`: secret query values, credential headers and
    /// `jarCookies` — the cookies the client's ``CookieJar`` will add below the cache
    /// (``CookieJar/cookies(addedTo:)``) — enter it only as digests (``CacheDigest``: keyed by
    /// the store's key when it keeps one).
    package init(_ request: HTTPRequest, namespace: String, context: RequestContext, digest: CacheDigest, jarCookies: String? = nil) {
        self.init(namespace: namespace, method: request.method.rawValue,
                  url: Self.url(of: request, secretNames: context.queryNames, digest: digest),
                  credentials: Self.credentialDigest(request.headerFields, extra: context.sensitiveHeaders, jarCookies: jarCookies, digest: digest))
    }

    /// The request's absolute URL in its one spelling (``CacheURL``), each secret query value
    /// replaced by its digest (`hmac-sha256:<hex>`): two different tokens give two different
    /// keys, and the token itself is never kept.
    static func url(of request: HTTPRequest, secretNames: Redaction.QueryNames, digest: CacheDigest) -> String {
        url(request.urlString, secretNames: secretNames, digest: digest)
    }

    /// An absolute URL as a key holds it: in its one spelling (``CacheURL``: the purge helpers
    /// compare in it too), each secret query value as its digest.
    static func url(_ url: String, secretNames: Redaction.QueryNames, digest: CacheDigest) -> String {
        let url = CacheURL.normalised(url)
        // Searched in the UTF-8 view: `firstIndex(of: "?")` on the String walks Characters
        // (grapheme breaking), a large share of a cache hit's cost.
        guard let mark = url.firstIndex(ofByte: UInt8(ascii: "?")) else { return url }
        var changed = false
        let items = url[url.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false).map { item -> Substring in
            guard let equals = item.firstIndex(of: "=") else { return item }
            let name = String(item[..<equals])
            guard secretNames.contains(name.removingPercentEncoding ?? name) else { return item }
            changed = true
            return item[...equals] + digest.labelled(String(item[item.index(after: equals)...]))
        }
        guard changed else { return url }
        return String(url[...mark]) + items.joined(separator: "&")
    }

    /// A digest of every credential header of the request — `Authorization`, `Cookie`, API-key
    /// headers and whatever ``Redaction/isSensitive(header:extra:)`` calls secret — and of the
    /// cookies a jar will add below the cache, or `nil` when there is none of either.
    static func credentialDigest(_ fields: HTTPFields, extra: Set<HTTPField.Name>, jarCookies: String? = nil,
                                 digest: CacheDigest) -> String? {
        var lines: [String] = []
        for field in fields where Redaction.isSensitive(header: field.name, extra: extra) {
            lines.append(field.name.canonicalName + ":" + field.value)
        }
        // The jar's cookies reach the wire after the cache: without them in the key, a response
        // stored for one session (a user's `GET /me`) would answer the next one's after a logout
        // and another login. Under a label no field name can have (a space is no token
        // character), so they never collide with a `Cookie` field of the request's own.
        if let jarCookies { lines.append(Self.jarCookiesLabel + jarCookies) }
        guard !lines.isEmpty else { return nil }
        return digest.hex(lines.sorted().joined(separator: "\n"))
    }

    /// What the jar's cookies are written after, in the text a key's credentials digest is made of.
    private static let jarCookiesLabel = "cookie jar:"
}
