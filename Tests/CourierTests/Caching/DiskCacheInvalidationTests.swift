@testable import Courier
import Foundation
import HTTPTypes
import Testing
import CourierTesting

/// A successful unsafe request (RFC 9111 §4.4) removes what the store holds for its URLs. On
/// disk that must not mean opening every entry: a cache of thousands of files would read them
/// all at each `POST`.
@Suite("DiskCacheStore: invalidation by URL")
struct DiskCacheInvalidationTests: DiskCacheTestBed, CachingTestBed {
    let clock = ManualClock()

    @Test("a successful POST removes its URL's entries, for every credential, without opening the files of other URLs")
    func postReadsOnlyItsURL() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let origin = CacheOrigin { request, call in
                request.method == .post ? (.created, [], "") : (.ok, [(.cacheControl, "max-age=600")], "v\(call)")
            }
            let client = client(origin, [cache(store)])
            _ = try await client.send(get("/items"))
            _ = try await client.send(get("/items", headers: [.authorization: "Bearer one"]))
            _ = try await client.send(get("/other"))
            #expect(Self.entryNames(in: directory).count == 3)

            // The other URL's file is damaged: a store that opened it would find out and remove it.
            let other = directory.appendingPathComponent(DiskCacheDirectory.fileName(for: Self.key("/v1/other")))
            #expect(FileManager.default.fileExists(atPath: other.path))
            try Data("not an entry".utf8).write(to: other)

            _ = try await client.send(MiddlewareFixtures.text(.post, "/items"))
            #expect(Self.entryNames(in: directory) == [other.lastPathComponent], "the entries of /items are gone; /other's file was not opened")
            #expect(try await client.response(for: get("/items")).metrics.cacheOutcome == .miss)
            #expect(try await client.response(for: get("/items", headers: [.authorization: "Bearer one"])).metrics.cacheOutcome == .miss)
            // The damaged file is found at its own next read: a miss, and removed.
            #expect(try await client.response(for: get("/other")).metrics.cacheOutcome == .miss)
        }
    }

    @Test("the entries of one URL share a file-name prefix, whatever the namespace, method or credentials; another URL's do not")
    func fileNamesGroupByURL() {
        let names = [
            Self.key("/a"), Self.key("/a", credentials: "digest"), Self.key("/a", namespace: "tenant-2"),
            HTTPCacheKey(namespace: "default", method: "HEAD", url: "https://api.example.com/a", credentials: nil),
        ].map(DiskCacheDirectory.fileName(for:))
        #expect(Set(names).count == 4)
        let prefix = DiskCacheDirectory.namePrefix(forURL: "https://api.example.com/a")
        #expect(names.allSatisfy { $0.hasPrefix(prefix) && DiskCacheDirectory.isEntryName($0) })
        #expect(!DiskCacheDirectory.fileName(for: Self.key("/b")).hasPrefix(prefix))
        #expect(!DiskCacheDirectory.fileName(for: Self.key("/a?page=2")).hasPrefix(prefix))
    }

    @Test("invalidateEntries(forURLs:where:) removes the entries of those URLs that match, and a damaged file under their names")
    func storeInvalidatesByURL() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let purgesBefore = await store.purgeCount
            let kept = [Self.key("/a", namespace: "tenant-2"), Self.key("/b"), Self.key("/c")]
            let removed = [Self.key("/a"), Self.key("/a", credentials: "digest"), Self.key("/c?x=1")]
            for key in kept + removed { await store.store(Self.entry(key)) }
            // A damaged file named for /c?x=1: found among that URL's files, and removed.
            let damaged = directory.appendingPathComponent(DiskCacheDirectory.fileName(for: Self.key("/c?x=1", credentials: "other")))
            try Data("damaged".utf8).write(to: damaged)

            await store.invalidateEntries(forURLs: ["https://api.example.com/a", "https://api.example.com/c?x=1"]) { $0.namespace == "default" }
            for key in kept { #expect(await store.entry(for: key) != nil, "\(key.namespace) \(key.url)") }
            for key in removed { #expect(await store.entry(for: key) == nil, "\(key.namespace) \(key.url)") }
            #expect(!FileManager.default.fileExists(atPath: damaged.path))
            #expect(Self.entryNames(in: directory).count == kept.count)
            #expect(await store.purgeCount == purgesBefore, "an invalidation is no purge")
        }
    }

    @Test("a store of one's own, with only the required methods, gets invalidation by URL from invalidateEntries(where:): no purge")
    func defaultImplementation() async throws {
        let store = OwnStore()
        let kept = [Self.key("/a", namespace: "tenant-2"), Self.key("/b")]
        let removed = [Self.key("/a"), Self.key("/a", credentials: "digest")]
        for key in kept + removed { await store.store(Self.entry(key)) }
        await store.invalidateEntries(forURLs: ["https://api.example.com/a"]) { $0.namespace == "default" }
        for key in kept { #expect(await store.entry(for: key) != nil) }
        for key in removed { #expect(await store.entry(for: key) == nil) }
        #expect(store.purgeCount == 0)
        #expect(store.invalidations == 1, "the default went through invalidateEntries(where:)")
    }

    /// A store that implements only what `HTTPCacheStore` requires, and counts the
    /// `invalidateEntries(where:)` calls it gets.
    final class OwnStore: HTTPCacheStore {
        private let inner = MemoryCacheStore()
        private let calls = Locked(0)
        var invalidations: Int { calls.current }
        func entry(for key: HTTPCacheKey) async -> CachedHTTPResponse? { await inner.entry(for: key) }
        func store(_ entry: CachedHTTPResponse) async { await inner.store(entry) }
        func removeEntry(for key: HTTPCacheKey) async { await inner.removeEntry(for: key) }
        func removeEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async { await inner.removeEntries(where: predicate) }
        func invalidateEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async {
            calls.withLock { $0 += 1 }
            await inner.invalidateEntries(where: predicate)
        }
        func removeAll() async { await inner.removeAll() }
    }

    static func entryNames(in directory: URL) -> [String] {
        fileNames(in: directory).filter(DiskCacheDirectory.isEntryName)
    }
}
