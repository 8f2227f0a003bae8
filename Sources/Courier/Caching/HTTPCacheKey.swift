import Foundation

/// What a cached response is filed under: the cache's namespace, the method, the URL and a
/// fingerprint of the credentials the request carried.
///
/// Two requests share a stored response only when all four are equal, so responses fetched
/// with different credentials (another user's bearer token, another API key) or by clients
/// with different namespaces never serve each other, even when the clients share one store.
/// Equal means the same UTF-8 bytes: unlike `String`'s `==`, which takes canonically
/// equivalent text as equal, the namespace `"é"` (U+00E9) and the namespace `"e\u{301}"` (an
/// `e` and a combining accent) are two namespaces.
///
/// The fingerprint is a digest, never the credential itself, so a store that writes keys to
/// disk never writes a secret. Secret query values (`access_token=…`) are replaced in ``url``
/// by their digest for the same reason. With ``MemoryCacheStore`` and ``DiskCacheStore`` the
/// digests are HMAC-SHA-256 under a random key of the store's (the disk store keeps it in its
/// directory, mode `0600`), so a key read from a cache file gives no way to test guesses of a
/// weak password or a short API key; a store of your own gets plain SHA-256 digests.
public struct HTTPCacheKey: Sendable, Hashable, Codable {
    /// The namespace of the ``CachingMiddleware`` that stored the response (one per client,
    /// tenant or user; see ``CachingMiddleware/init(store:namespace:policy:staleResponses:maxHeuristicLifetime:clock:)``).
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

    /// The key as text, which a store may hash into a file name (``DiskCacheStore`` does): the
    /// namespace, method, URL and fingerprint, each written as its length in UTF-8 bytes, a
    /// colon and its bytes, separated by newlines; no fingerprint is written `-`. Two keys have
    /// the same text only when they are equal (`==`): a newline, a backslash or a colon
    /// inside a component is never taken for a separator, since the length says where the
    /// component ends.
    ///
    /// The namespace `"a\nb"` (`a`, a newline, `b`) begins the text with `3:`, and the namespace
    /// `"a\\nb"` (`a`, a backslash, `n`, `b`) with `4:`. Before this form, newlines in the
    /// namespace were written as a backslash and an `n`, and the other components as they
    /// were, so such keys could share one text (and one file on disk).
    public var text: String {
        var text = ""
        text.reserveCapacity(namespace.utf8.count + method.utf8.count + url.utf8.count + (credentials?.utf8.count ?? 0) + 24)
        func appendComponent(_ component: String) {
            text += String(component.utf8.count)
            text += ":"
            text += component
        }
        appendComponent(namespace)
        text += "\n"
        appendComponent(method)
        text += "\n"
        appendComponent(url)
        text += "\n"
        if let credentials { appendComponent(credentials) } else { text += "-" }
        return text
    }

    /// Whether the two keys are the same key: each component holds the same UTF-8 bytes.
    public static func == (lhs: HTTPCacheKey, rhs: HTTPCacheKey) -> Bool {
        lhs.namespace.hasSameUTF8(as: rhs.namespace) && lhs.url.hasSameUTF8(as: rhs.url)
            && lhs.method.hasSameUTF8(as: rhs.method) && Self.sameCredentials(lhs.credentials, rhs.credentials)
    }

    /// Hashes the components' UTF-8 bytes, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        namespace.hashUTF8(into: &hasher)
        method.hashUTF8(into: &hasher)
        url.hashUTF8(into: &hasher)
        if let credentials {
            hasher.combine(true)
            credentials.hashUTF8(into: &hasher)
        } else {
            hasher.combine(false)
        }
    }

    private static func sameCredentials(_ lhs: String?, _ rhs: String?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case let (lhs?, rhs?): return lhs.hasSameUTF8(as: rhs)
        default: return false
        }
    }
}
