/// How often each URL was invalidated by a successful unsafe request (RFC 9111 §4.4), so that a
/// response to a `GET` sent before the invalidation, and arriving after it, is not stored as
/// fresh — without touching the store's ``HTTPCacheStore/purgeCount``, which would stop every
/// request under way, to any URL, from being stored.
///
/// The generations live in 1,024 buckets by hash of namespace and URL: fixed memory however
/// many URLs are written to; two URLs sharing a bucket only make a response less often stored.
final class CacheInvalidations: Sendable {
    private static let bucketCount = 1024
    private let buckets = Locked([Int](repeating: 0, count: CacheInvalidations.bucketCount))

    /// The generation of `url` in `namespace`, read before a request goes out.
    func generation(of url: String, namespace: String) -> Int {
        let index = Self.bucket(url, namespace)
        return buckets.withLock { $0[index] }
    }

    /// Marks `url` in `namespace` as changed.
    func invalidate(_ url: String, namespace: String) {
        let index = Self.bucket(url, namespace)
        buckets.withLock { $0[index] &+= 1 }
    }

    private static func bucket(_ url: String, _ namespace: String) -> Int {
        var hasher = Hasher()
        hasher.combine(namespace)
        hasher.combine(url)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(bucketCount))
    }
}
