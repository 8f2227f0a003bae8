import Foundation

/// Where ``CachingMiddleware`` keeps responses: ``MemoryCacheStore``, ``DiskCacheStore``, or a
/// store of your own (a database, a shared cache between app extensions).
///
/// A store never fails a request: an entry it cannot read is a miss, and an entry it cannot
/// write is not stored. Methods are `async` so a store may be an actor or do I/O; they may be
/// called concurrently.
///
/// ```swift
/// let store = MemoryCacheStore(maxBytes: 20 << 20, maxEntries: 2_000)
/// let client = APIClient(configuration: configuration, transport: transport,
///                        middleware: [CachingMiddleware(store: store)])
/// // At logout:
/// await store.removeAll()
/// ```
public protocol HTTPCacheStore: Sendable {
    /// The response stored under `key`, or `nil` (also when the entry is unreadable).
    func entry(for key: HTTPCacheKey) async -> CachedHTTPResponse?
    /// Stores `entry` under its ``CachedHTTPResponse/key``, replacing what was there. A store
    /// that cannot keep it (too large, disk full) drops it silently.
    func store(_ entry: CachedHTTPResponse) async
    /// Removes the entry stored under `key`, if any.
    func removeEntry(for key: HTTPCacheKey) async
    /// Removes every entry whose key matches `predicate`.
    func removeEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async
    /// Removes every entry whose key matches `predicate` because the resource changed (a
    /// successful unsafe request, RFC 9111 §4.4): unlike ``removeEntries(where:)`` it is no
    /// purge and leaves ``purgeCount`` as it is (``CachingMiddleware`` guards those URLs itself).
    /// The default calls ``removeEntries(where:)``.
    func invalidateEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async
    /// Removes every entry stored for one of `urls` (each compared with ``HTTPCacheKey/url``)
    /// whose key also matches `predicate`, because those resources changed — no purge, as with
    /// ``invalidateEntries(where:)``. ``CachingMiddleware`` calls this one after a successful
    /// unsafe request. The default calls ``invalidateEntries(where:)`` with both conditions;
    /// implement it when a store can find a URL's entries without reading all of them:
    /// ``DiskCacheStore`` names its files by URL and opens only those. A store that wraps
    /// another should forward this call too, or the wrapped store's own is not used.
    func invalidateEntries(forURLs urls: Set<String>, where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async
    /// Removes every entry.
    func removeAll() async
    /// How many purges (``removeAll()``, ``removeEntries(where:)``) the store has had — or any
    /// number that changes at each purge: ``CachingMiddleware`` compares it only for equality.
    /// It reads it before a request goes out and stores nothing from that request if it
    /// changed meanwhile (it reads it again after the write, and removes the entry if a purge
    /// came while it was written), so a purge at logout is not undone by a response still
    /// under way. ``MemoryCacheStore`` counts its own purges; ``DiskCacheStore`` keeps a purge
    /// generation in its directory, so a purge through any store on that directory counts for
    /// all of them. A store of your own that does not count them (the default: always 0) has no
    /// such protection; one shared by several clients or processes should count purges where
    /// they all look.
    var purgeCount: Int { get async }
    /// A secret key under which ``CachingMiddleware`` digests the secrets in keys —
    /// credential headers, secret query values, credential fields a response varies on — with
    /// HMAC-SHA-256, or `nil` for plain SHA-256 digests (the default). A store that writes keys
    /// somewhere (a file, a database) should return one it keeps apart from its entries, the
    /// same on every call and across launches (or its entries are misses): with a key, a key
    /// that leaks gives no way to test guesses of a weak password or a short API key.
    /// ``MemoryCacheStore`` draws one at random; ``DiskCacheStore`` keeps one in its directory.
    ///
    /// Read, synchronously, each time a secret is digested: keep it cheap after the first read.
    var digestKey: [UInt8]? { get }
}

extension HTTPCacheStore {
    /// A store that does not count its purges: always 0 (see the requirement).
    public var purgeCount: Int { 0 }

    /// No key: plain SHA-256 digests (see the requirement).
    public var digestKey: [UInt8]? { nil }

    /// Removes the entries, as ``removeEntries(where:)`` does (see the requirement).
    public func invalidateEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async {
        await removeEntries(where: predicate)
    }

    /// Removes the matching entries of those URLs through ``invalidateEntries(where:)`` (see the
    /// requirement).
    public func invalidateEntries(forURLs urls: Set<String>, where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async {
        await invalidateEntries { urls.contains($0.url) && predicate($0) }
    }

    /// Removes every entry for `url` (any method, namespace or credentials), as after a change
    /// to that resource. The URL is keyed as the middleware keys requests: a secret query value
    /// (`access_token=…`, a name in `sensitiveQueryNames` — pass your configuration's) as its
    /// digest, and both it and each stored key's URL in one spelling — scheme and host in lower
    /// case, no default port, an empty path as `/`, non-ASCII text and other bytes a URI cannot
    /// hold percent-encoded, escapes in upper case and unreserved characters unescaped, no
    /// fragment — so `https://api.example.com/users/Jörg` finds the entry of a request sent to
    /// `https://API.example.com:443/users/J%C3%B6rg`. An escaped reserved character stays
    /// apart from itself: `/users/a%2Fb` is not `/users/a/b`.
    public func removeEntries(for url: URL, sensitiveQueryNames: Set<String> = []) async {
        let names = sensitiveQueryNames.isEmpty ? Redaction.QueryNames.standard : Redaction.QueryNames.standard.adding(sensitiveQueryNames)
        let text = CacheURL.normalised(url.absoluteString)
        let keyed = HTTPCacheKey.url(text, secretNames: names, digest: CacheDigest(store: self))
        await removeEntries { key in
            // The stored side too: a key of your own, or one written before keys had one spelling.
            let stored = CacheURL.normalised(key.url)
            return stored == keyed || stored == text
        }
    }

    /// Removes every entry whose URL starts with `prefix`: `https://api.example.com/v1/users/42/`
    /// drops everything cached under one user's resources. The prefix and each stored key's URL
    /// are compared in one spelling, as ``removeEntries(for:sensitiveQueryNames:)`` compares URLs
    /// (the scheme's default port, host case, percent-encoding); a prefix that ends in the host
    /// gets no `/` added. Secret query values are digests in keys: a prefix that reaches into
    /// one matches nothing.
    public func removeEntries(withURLPrefix prefix: String) async {
        let prefix = CacheURL.normalised(prefix, completingPath: false)
        await removeEntries { CacheURL.normalised($0.url).hasPrefix(prefix) }
    }

    /// Removes every entry stored by one namespace (one client, tenant or user), as at logout.
    /// Namespaces are compared by their UTF-8 bytes, as keys are (``HTTPCacheKey``): purging
    /// `"é"` (U+00E9) leaves the entries of `"e\u{301}"` alone.
    public func removeEntries(inNamespace namespace: String) async {
        await removeEntries { $0.namespace.hasSameUTF8(as: namespace) }
    }
}
