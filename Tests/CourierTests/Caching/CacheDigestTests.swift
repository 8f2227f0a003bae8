@testable import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Secrets the cache must tell apart but never keep — credential headers, secret query values,
/// credential fields a response varies on — enter its keys as HMAC-SHA-256 digests under a key
/// of the store's own, not as plain SHA-256: a weak password or a short API key cannot be
/// found again from a cache file by hashing guesses.
@Suite("Cache digests")
struct CacheDigestTests: CachingTestBed {
    let clock = ManualClock()

    @Test("HMAC-SHA-256: RFC 4231 test cases 1, 2 and 6 (a key longer than a block)")
    func rfc4231() {
        func code(_ key: [UInt8], _ message: String) -> String { SHA256.hex(HMACSHA256.code(key: key, message: Array(message.utf8))) }
        #expect(code([UInt8](repeating: 0x0b, count: 20), "Hi There")
            == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(code(Array("Jefe".utf8), "what do ya want for nothing?")
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(code([UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First")
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-digest-\(UUID().uuidString)")
    }

    /// Caches one response to a request with an `Authorization` header and an `access_token`
    /// query value, varying on `Authorization`.
    private func cacheOneResponse(in store: any HTTPCacheStore) async throws -> APIClient {
        let origin = CacheOrigin { _, _ in (.ok, [(.cacheControl, "private, max-age=60"), (.vary, "Authorization")], "x") }
        let client = client(origin, [cache(store)])
        let request = get("/items?access_token=weak1&page=1", headers: [.authorization: "Bearer weak1"])
        _ = try await client.send(request)
        #expect(try await client.response(for: request).metrics.cacheOutcome == .hit)
        return client
    }

    @Test("a disk entry holds no plain SHA-256 digest of a credential header, a secret query value or a varied-on credential")
    func noPlainDigestsOnDisk() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await cacheOneResponse(in: DiskCacheStore(directory: directory))
        let guesses = [SHA256.hex("weak1"), SHA256.hex("Bearer weak1"), SHA256.hex("authorization:Bearer weak1")]
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.contains { $0.pathExtension == "cache" })
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            for guess in guesses { #expect(!text.contains(guess), "\(file.lastPathComponent) holds sha256 of a guessable secret") }
            #expect(!text.contains("weak1"))
        }
    }

    @Test("a store in the same directory (the app launched again) finds the entries: the digest key is kept there, owner-only")
    func keyIsKeptInTheDirectory() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await cacheOneResponse(in: DiskCacheStore(directory: directory))
        let origin = CacheOrigin { _, _ in (.ok, [], "from the network") }
        let relaunched = client(origin, [cache(DiskCacheStore(directory: directory))])
        let hit = try await relaunched.response(for: get("/items?access_token=weak1&page=1", headers: [.authorization: "Bearer weak1"]))
        #expect(hit.metrics.cacheOutcome == .hit)
        #expect(hit.value == "x")
        #expect(origin.count == 0)
        let keyFile = directory.appendingPathComponent(DiskCacheDirectory.digestKeyName)
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((attributes[.size] as? NSNumber)?.intValue == 32)
    }

    @Test("another user's token still misses, on disk and in memory")
    func otherCredentialsMiss() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for store: any HTTPCacheStore in [DiskCacheStore(directory: directory), MemoryCacheStore()] {
            let client = try await cacheOneResponse(in: store)
            let other = try await client.response(for: get("/items?access_token=weak2&page=1", headers: [.authorization: "Bearer weak1"]))
            #expect(other.metrics.cacheOutcome == .miss)
            let otherUser = try await client.response(for: get("/items?access_token=weak1&page=1", headers: [.authorization: "Bearer weak2"]))
            #expect(otherUser.metrics.cacheOutcome == .miss)
        }
    }

    @Test("removeEntries(for:) finds an entry keyed with a secret query value")
    func removeByURL() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for store: any HTTPCacheStore in [DiskCacheStore(directory: directory), MemoryCacheStore()] {
            let client = try await cacheOneResponse(in: store)
            await store.removeEntries(for: URL(string: "https://api.example.com/v1/items?access_token=weak1&page=1")!)
            let after = try await client.response(for: get("/items?access_token=weak1&page=1", headers: [.authorization: "Bearer weak1"]))
            #expect(after.metrics.cacheOutcome == .miss)
        }
    }

    @Test("a damaged key file (another size) is replaced; stores made at once on a new directory agree on one key")
    func damagedAndRacingKeyFiles() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyFile = directory.appendingPathComponent(DiskCacheDirectory.digestKeyName)
        try Data("short".utf8).write(to: keyFile)
        let key = try #require(DiskCacheStore(directory: directory).digestKey)
        #expect(key.count == 32)
        #expect(try Data(contentsOf: keyFile) == Data(key))

        let fresh = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: fresh) }
        let keys = await withTaskGroup(of: [UInt8]?.self) { group in
            for _ in 0..<8 { group.addTask { DiskCacheStore(directory: fresh).digestKey } }
            return await group.reduce(into: [[UInt8]?]()) { $0.append($1) }
        }
        #expect(Set(keys.compactMap { $0 }).count == 1)
        #expect(keys.allSatisfy { $0?.count == 32 })
    }

    @Test("a directory emptied under the store gets its key back with the next entry, so a relaunch finds it")
    func keyRestoredAfterPurge() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory)
        let client = try await cacheOneResponse(in: store)
        try FileManager.default.removeItem(at: directory)   // the system purged the caches folder
        _ = try await client.send(get("/items?access_token=weak1&page=2", headers: [.authorization: "Bearer weak1"]))
        let relaunched = DiskCacheStore(directory: directory)
        #expect(relaunched.digestKey == store.digestKey)
    }

    @Test("a store in a directory it may not use still keys digests, never plain SHA-256, and writes no key there")
    func untrustedDirectory() async throws {
        let target = temporaryDirectory()
        let link = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: target); try? FileManager.default.removeItem(at: link) }
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let store = DiskCacheStore(directory: link)
        #expect(store.digestKey?.count == 32)
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent(DiskCacheDirectory.digestKeyName).path))
    }

    /// A store of the user's: with a key, digests are keyed; without one, plain SHA-256.
    private final class OwnStore: HTTPCacheStore {
        let inner = MemoryCacheStore()
        let key: [UInt8]?
        init(key: [UInt8]?) { self.key = key }
        var digestKey: [UInt8]? { key }
        func entry(for key: HTTPCacheKey) async -> CachedHTTPResponse? { await inner.entry(for: key) }
        func store(_ entry: CachedHTTPResponse) async { await inner.store(entry) }
        func removeEntry(for key: HTTPCacheKey) async { await inner.removeEntry(for: key) }
        func removeEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async { await inner.removeEntries(where: predicate) }
        func removeAll() async { await inner.removeAll() }
    }

    @Test("a store of your own keys digests with its digestKey; without one they are plain SHA-256")
    func ownStore() async throws {
        for (store, label) in [(OwnStore(key: Array("k".utf8)), "hmac-sha256:"), (OwnStore(key: nil), "sha256:")] {
            _ = try await cacheOneResponse(in: store)
            let keys = Locked<[HTTPCacheKey]>([])
            await store.removeEntries { key in keys.withLock { $0.append(key) }; return false }
            #expect(keys.current.count == 1)
            #expect(keys.current.allSatisfy { $0.url.contains("access_token=" + label) })
            let expected = label == "sha256:" ? SHA256.hex("authorization:Bearer weak1") : SHA256.hex(HMACSHA256.code(key: Array("k".utf8), message: "authorization:Bearer weak1".utf8))
            #expect(keys.current.first?.credentials == expected)
        }
    }
}
