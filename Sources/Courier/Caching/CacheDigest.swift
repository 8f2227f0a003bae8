/// How the cache keeps a secret it must tell apart but never hold — a credential header, a
/// secret query value, a credential field a response varies on: as a digest under a key of the
/// store's own (HMAC-SHA-256), so that whoever reads a cache file or a key cannot test guesses
/// of a weak password or a short API key against it.
///
/// ``MemoryCacheStore`` draws its key at random; ``DiskCacheStore`` keeps one in its directory
/// (`.digest-key`, mode `0600`), so entries survive a relaunch. A store of your own gets plain
/// SHA-256 digests.
package struct CacheDigest: Sendable {
    /// The store's key; `nil` for plain SHA-256.
    private let key: [UInt8]?

    /// Plain SHA-256, for a store that keeps no key.
    package static let unkeyed = CacheDigest(key: nil)

    private init(key: [UInt8]?) { self.key = key }

    /// The digest `store` asks for: under its key when it keeps one.
    package init(store: any HTTPCacheStore) {
        self.init(key: (store as? any CacheDigestKeyedStore)?.digestKey)
    }

    /// The digest of `text` as 64 hexadecimal digits.
    package func hex(_ text: String) -> String {
        guard let key else { return SHA256.hex(text) }
        return SHA256.hex(HMACSHA256.code(key: key, message: text.utf8))
    }

    /// The digest of `text` with what made it in front: `hmac-sha256:<hex>` or `sha256:<hex>`.
    package func labelled(_ text: String) -> String {
        (key == nil ? "sha256:" : "hmac-sha256:") + hex(text)
    }
}

/// A store that keys the digests of its entries' secrets (see ``CacheDigest``).
protocol CacheDigestKeyedStore {
    /// 32 secret bytes, the same for every entry of the store.
    var digestKey: [UInt8] { get }
}

extension CacheDigest {
    /// 32 bytes from the system's cryptographically secure generator.
    static func randomKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
