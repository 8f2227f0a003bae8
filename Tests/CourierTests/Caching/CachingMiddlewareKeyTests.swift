import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("CachingMiddleware: keys and Vary (RFC 9111 §4.1)")
struct CachingMiddlewareKeyTests: CachingTestBed {
    let clock = ManualClock()

    // MARK: Keys

    @Test("responses fetched with different credentials never serve each other; equal credentials share")
    func credentialsSeparate() async throws {
        let origin = CacheOrigin { request, _ in (.ok, [(.cacheControl, "private, max-age=60")], "for \(request.headerFields[.authorization] ?? "nobody")") }
        let client = client(origin, [cache()])
        #expect(try await client.send(get(headers: [.authorization: "Bearer alice"])) == "for Bearer alice")
        #expect(try await client.send(get(headers: [.authorization: "Bearer bob"])) == "for Bearer bob")
        #expect(try await client.send(get())  == "for nobody")
        #expect(try await client.send(get(headers: [.authorization: "Bearer alice"])) == "for Bearer alice")
        #expect(try await client.send(get(headers: [HTTPField.Name("X-API-Key")!: "k1"])) == "for nobody")
        #expect(try await client.send(get(headers: [HTTPField.Name("X-API-Key")!: "k2"])) == "for nobody")
        #expect(origin.count == 5)   // alice, bob, nobody, k1, k2; alice's second came from the store
    }

    @Test("two clients sharing one store with different namespaces never serve each other")
    func namespaces() async throws {
        let store = MemoryCacheStore()
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60")], "\(call)") }
        let tenantA = client(origin, [cache(store, namespace: "tenant-a")])
        let tenantB = client(origin, [cache(store, namespace: "tenant-b")])
        #expect(try await tenantA.send(get()) == "1")
        #expect(try await tenantB.send(get()) == "2")
        #expect(try await tenantA.send(get()) == "1")
        await store.removeEntries(inNamespace: "tenant-a")
        #expect(try await tenantA.send(get()) == "3")
        #expect(try await tenantB.send(get()) == "2")
    }

    @Test("a secret query value enters the key as a digest: different tokens never share, and the store never holds the token")
    func secretQuery() async throws {
        let store = MemoryCacheStore()
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60")], "\(call)") }
        let client = client(origin, [cache(store)])
        #expect(try await client.send(get("/feed?access_token=SECRET1&page=1")) == "1")
        #expect(try await client.send(get("/feed?access_token=SECRET2&page=1")) == "2")
        #expect(try await client.send(get("/feed?access_token=SECRET1&page=1")) == "1")
        let keys = Locked<[HTTPCacheKey]>([])
        await store.removeEntries { key in keys.withLock { $0.append(key) }; return false }
        #expect(keys.current.count == 2)
        #expect(keys.current.allSatisfy { !$0.url.contains("SECRET") && $0.url.contains("access_token=hmac-sha256:") && $0.url.hasSuffix("&page=1") })
    }

    // MARK: Vary

    @Test("Vary: a request with another value of a varying field misses; Vary: * and 1,000 fields are not stored")
    func vary() async throws {
        let origin = CacheOrigin { request, call in
            (.ok, [(.cacheControl, "max-age=60"), (.vary, "Accept-Language")], "\(request.headerFields[.acceptLanguage] ?? "-") \(call)")
        }
        let client = client(origin, [cache()])
        #expect(try await client.send(get(headers: [.acceptLanguage: "fr"])) == "fr 1")
        #expect(try await client.send(get(headers: [.acceptLanguage: "fr"])) == "fr 1")
        #expect(try await client.send(get(headers: [.acceptLanguage: "de"])) == "de 2")
        #expect(try await client.send(get()) == "- 3")
        #expect(try await client.send(get()) == "- 3")

        origin.respond { _, call in (.ok, [(.cacheControl, "max-age=60"), (.vary, "*")], "\(call)") }
        _ = try await client.send(get("/star"))
        #expect(try await client.send(get("/star")) == "5")

        let thousand = (0..<1000).map { "X-Field-\($0)" }.joined(separator: ", ")
        origin.respond { _, call in (.ok, [(.cacheControl, "max-age=60"), (.vary, thousand)], "\(call)") }
        _ = try await client.send(get("/many"))
        #expect(try await client.send(get("/many")) == "7")
    }

    @Test("a Vary of 32 field names is stored, one of 33 is not", arguments: [(32, true), (33, false)])
    func varyNameLimit(names: Int, stored: Bool) async throws {
        let vary = (0..<names).map { "X-Field-\($0)" }.joined(separator: ", ")
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60"), (.vary, vary)], "\(call)") }
        let client = client(origin, [cache()])
        #expect(try await client.send(get()) == "1")
        #expect(try await client.send(get()) == (stored ? "1" : "2"))
    }

    @Test("Vary on a credential header selects by its digest: other credentials miss, the same one hits, and no stored entry holds the secret")
    func varyOnCredentials() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-vary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory)
        // GitHub's API answers `Vary: Accept, Authorization, Cookie`.
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60"), (.vary, "Accept, Authorization, Cookie, X-API-Key")], "\(call)") }
        let client = client(origin, [cache(store)])
        let alice: RequestHeaders = [.authorization: "Bearer ALICE-SECRET", .cookie: "session=ALICE-COOKIE", HTTPField.Name("X-API-Key")!: "ALICE-KEY"]
        let bob: RequestHeaders = [.authorization: "Bearer BOB-SECRET", .cookie: "session=BOB-COOKIE", HTTPField.Name("X-API-Key")!: "BOB-KEY"]
        #expect(try await client.send(get(headers: alice)) == "1")
        #expect(try await client.send(get(headers: alice)) == "1")
        #expect(try await client.send(get(headers: bob)) == "2")
        #expect(try await client.send(get(headers: bob)) == "2")
        var stored = Data()
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            if let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) { stored += data }
        }
        let text = String(decoding: stored, as: UTF8.self)
        #expect(!text.isEmpty)
        for secret in ["ALICE-SECRET", "ALICE-COOKIE", "ALICE-KEY", "BOB-SECRET", "BOB-COOKIE", "BOB-KEY"] {
            #expect(!text.contains(secret), "the disk store wrote \(secret)")
        }
    }
}
