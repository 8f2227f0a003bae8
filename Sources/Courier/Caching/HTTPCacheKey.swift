import Foundation

/// What a cached response is filed under: the cache's namespace, the method, the URL and a
/// fingerprint of the credentials the request carried.
///
/// Two requests share a stored response only when all four are equal, so responses fetched
/// with different credentials (another user's bearer token, another API key) or by clients
/// with different namespaces never serve each other, even when the clients share one store.
/// The fingerprint is a digest, never the credential itself, so a store that writes keys to
/// disk never writes a secret. Secret query values (`access_token=…`) are replaced in ``url``
/// by their digest for the same reason. With ``MemoryCacheStore`` and ``DiskCacheStore`` the
/// digests are HMAC-SHA-256 under a random key of the store's (the disk store keeps it in its
/// directory, mode `0600`), so a key read from a cache file gives no way to test guesses of a
/// weak password or a short API key; a store of your own gets plain SHA-256 digests.
public struct HTTPCacheKey: Sendable, Hashable, Codable {
    /// The namespace of the ``CachingMiddleware`` that stored the response (one per client,
    /// tenant or user; see ``CachingMiddleware/init(store:namespace:policy:staleResponses:maxHeuristicLifetime:)``).
    public var namespace: String
    /// The request method, `GET`.
    public var method: String
    /// The absolute URL, with secret query values replaced by their digest.
    public var url: String
    /// A hex digest (see above) of the request's credential headers (`Authorization`, API keys,
    /// cookies set by the caller), or `nil` when it carried none.
    public var credentials: String?

    /// Creates a key.
    public init(namespace: String, method: String, url: String, credentials: String?) {
        self.namespace = namespace
        self.method = method
        self.url = url
        self.credentials = credentials
    }

    /// The key as one line of text (a store may hash it into a file name):
    /// `namespace`, method, URL and fingerprint separated by newlines, which none of them can
    /// contain unescaped.
    public var text: String {
        // Foundation's replacingOccurrences costs ~10,000 instructions even when there is nothing to replace.
        let escaped = namespace.containsByte(UInt8(ascii: "\n")) ? namespace.replacingOccurrences(of: "\n", with: "\\n") : namespace
        return [escaped, method, url, credentials ?? "-"].joined(separator: "\n")
    }
}
