import Courier
import Foundation
import HTTPTypes
import Testing

@Suite("MemoryCacheStore")
struct MemoryCacheStoreTests {
    static func key(_ path: String, namespace: String = "n") -> HTTPCacheKey {
        HTTPCacheKey(namespace: namespace, method: "GET", url: "https://api.example.com\(path)", credentials: nil)
    }

    static func entry(_ path: String, bytes: Int = 100, namespace: String = "n") -> CachedHTTPResponse {
        CachedHTTPResponse(key: key(path, namespace: namespace), response: HTTPResponse(status: .ok), body: Data(repeating: 1, count: bytes),
                           requestDate: Date(), responseDate: Date())
    }

    @Test("stores, replaces and removes")
    func roundTrip() async {
        let store = MemoryCacheStore()
        await store.store(Self.entry("/a", bytes: 10))
        await store.store(Self.entry("/a", bytes: 20))
        #expect(await store.entry(for: Self.key("/a"))?.body.count == 20)
        #expect(store.count == 1)
        #expect(store.totalBytes == Self.entry("/a", bytes: 20).cost)
        await store.removeEntry(for: Self.key("/a"))
        #expect(await store.entry(for: Self.key("/a")) == nil)
        #expect(store.totalBytes == 0)
    }

    @Test("the entry count is bounded; the least recently used goes first")
    func entryBound() async {
        let store = MemoryCacheStore(maxBytes: 1 << 30, maxEntries: 3)
        for path in ["/1", "/2", "/3"] { await store.store(Self.entry(path)) }
        _ = await store.entry(for: Self.key("/1"))          // /1 is now the most recent
        await store.store(Self.entry("/4"))
        #expect(store.count == 3)
        #expect(await store.entry(for: Self.key("/2")) == nil)
        #expect(await store.entry(for: Self.key("/1")) != nil)
        #expect(await store.entry(for: Self.key("/4")) != nil)
    }

    @Test("the recency order survives the bookkeeping's compaction: entries left untouched while another is used hundreds of times go oldest first")
    func recencyAfterCompaction() async {
        let store = MemoryCacheStore(maxBytes: 1 << 30, maxEntries: 4)
        for path in ["/a", "/b", "/c", "/d"] { await store.store(Self.entry(path)) }
        // Hundreds of uses of /d compact the queue of uses several times while /a, /b, /c wait.
        for _ in 0..<300 { _ = await store.entry(for: Self.key("/d")) }
        await store.store(Self.entry("/e"))
        #expect(await store.entry(for: Self.key("/a")) == nil, "least recently used")
        await store.store(Self.entry("/f"))
        #expect(await store.entry(for: Self.key("/b")) == nil, "next least recently used")
        #expect(store.count == 4)
        for path in ["/c", "/d", "/e", "/f"] { #expect(await store.entry(for: Self.key(path)) != nil, "\(path)") }
    }

    @Test("the byte size is bounded; an entry larger than the store is not kept and replaces nothing")
    func byteBound() async {
        let one = Self.entry("/x", bytes: 1_000).cost
        let store = MemoryCacheStore(maxBytes: one * 3, maxEntries: 1_000)
        for index in 0..<10 { await store.store(Self.entry("/\(index)", bytes: 1_000)) }
        #expect(store.count == 3)
        #expect(store.totalBytes <= one * 3)
        await store.store(Self.entry("/huge", bytes: one * 4))
        #expect(await store.entry(for: Self.key("/huge")) == nil)
        #expect(store.count == 3)
    }

    @Test("10,000 distinct URLs through a small store: bounded, and the bookkeeping stays bounded too")
    func manyURLs() async {
        let store = MemoryCacheStore(maxBytes: 200_000, maxEntries: 500)
        for index in 0..<10_000 {
            await store.store(Self.entry("/item/\(index)", bytes: 300))
            if index % 3 == 0 { _ = await store.entry(for: Self.key("/item/\(index / 2)")) }
        }
        #expect(store.count <= 500)
        #expect(store.totalBytes <= 200_000)
        #expect(await store.entry(for: Self.key("/item/9999")) != nil)
    }

    @Test("purge by predicate, URL, prefix and namespace")
    func purge() async {
        let store = MemoryCacheStore()
        await store.store(Self.entry("/users/1/a"))
        await store.store(Self.entry("/users/1/b"))
        await store.store(Self.entry("/users/2/a"))
        await store.store(Self.entry("/users/2/a", namespace: "other"))
        await store.removeEntries(withURLPrefix: "https://api.example.com/users/1/")
        #expect(store.count == 2)
        await store.removeEntries(inNamespace: "other")
        #expect(store.count == 1)
        await store.removeEntries(for: URL(string: "https://api.example.com/users/2/a")!)
        #expect(store.count == 0)
        await store.store(Self.entry("/z"))
        await store.removeAll()
        #expect(store.count == 0 && store.totalBytes == 0)
    }

    @Test("concurrent readers and writers leave a consistent store")
    func concurrent() async {
        let store = MemoryCacheStore(maxBytes: 50_000, maxEntries: 100)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<500 {
                        let path = "/\((worker * 31 + index) % 300)"
                        if index % 2 == 0 { await store.store(Self.entry(path, bytes: 200)) } else { _ = await store.entry(for: Self.key(path)) }
                    }
                }
            }
        }
        #expect(store.count <= 100)
        #expect(store.totalBytes <= 50_000)
    }
}
