/// How the cache keeps a secret it must tell apart but never hold — a credential header, a
/// secret query value, a credential field a response varies on: as a digest, under the store's
/// ``HTTPCacheStore/digestKey`` (HMAC-SHA-256) when it has one, so that a key or an entry file
/// on its own gives no way to test guesses of a weak password or a short API key; as plain
/// SHA-256 for a store without a key.
///
/// The key is asked for only when a secret is digested: a request without one costs no
/// lookup (``DiskCacheStore`` reads its key file the first time).
package struct CacheDigest: Sendable {
    /// The store whose key digests are made under (plain SHA-256 when it has none).
    private let store: any HTTPCacheStore

    /// Digests under `store`'s key, when it has one.
    package init(store: any HTTPCacheStore) {
        self.store = store
    }

    /// The digest of `text`, labelled with what made it: `hmac-sha256:<hex>` or `sha256:<hex>`.
    package func labelled(_ text: String) -> String {
        let (label, digest) = make(text)
        return label + ":" + digest
    }

    /// The digest of `text` as 64 hexadecimal digits.
    package func hex(_ text: String) -> String { make(text).digest }

    private func make(_ text: String) -> (label: String, digest: String) {
        guard let key = store.digestKey, !key.isEmpty else { return ("sha256", SHA256.hex(text)) }
        return ("hmac-sha256", SHA256.hex(HMACSHA256.code(key: key, message: text.utf8)))
    }

    /// 32 bytes from the system's cryptographically secure generator.
    package static func randomKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
