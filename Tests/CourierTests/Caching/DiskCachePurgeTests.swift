@testable import Courier
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Purges are seen by every store on a directory: an app and its extension, or two clients,
/// each with a `DiskCacheStore` of their own. The middleware compares `purgeCount` before and
/// after a response arrives; a purge through any store on the directory must change it for all.
@Suite("DiskCacheStore: purges across stores")
struct DiskCachePurgeTests: DiskCacheTestBed {
    @Test("a purge through one store changes purgeCount for every store on the directory; removing or invalidating entries does not")
    func purgeSeenByAnotherStore() async throws {
        try await withDirectory { directory in
            let first = DiskCacheStore(directory: directory)
            let second = DiskCacheStore(directory: directory)
            let mark = await second.purgeCount
            #expect(await first.purgeCount == mark, "both read the directory's generation")

            await first.removeAll()
            let afterRemoveAll = await second.purgeCount
            #expect(afterRemoveAll != mark)
            // A store made afterwards — another process — reads the same generation.
            #expect(await DiskCacheStore(directory: directory).purgeCount == afterRemoveAll)

            await first.removeEntries { _ in false }   // a purge, even when nothing matches
            let afterRemoveEntries = await second.purgeCount
            #expect(afterRemoveEntries != afterRemoveAll)

            await first.store(Self.entry(Self.key("/a")))
            await first.removeEntry(for: Self.key("/a"))
            await first.invalidateEntries { _ in true }
            await first.invalidateEntries(forURLs: ["https://api.example.com/b"]) { _ in true }
            #expect(await second.purgeCount == afterRemoveEntries, "no purge")

            let generation = directory.appendingPathComponent(DiskCacheDirectory.purgeGenerationName)
            let mode = try Self.mode(of: generation)
            #expect(mode == 0o600)
        }
    }

    @Test("a directory removed under the stores (the system purged the caches folder) reads as a new generation, never one read before")
    func directoryRemovedUnderTheStore() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let mark = await store.purgeCount
            try FileManager.default.removeItem(at: directory)
            let after = await store.purgeCount
            #expect(after != mark)
            #expect(await store.purgeCount == after, "the new generation is kept in the directory made again")
        }
    }

    @Test("a purge generation file that others may write is not read: it is replaced by a private one")
    func generationOpenToOthers() async throws {
        try await withDirectory { directory in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let generation = directory.appendingPathComponent(DiskCacheDirectory.purgeGenerationName)
            #expect(FileManager.default.createFile(atPath: generation.path, contents: Data([0, 0, 0, 0, 0, 0, 0, 42])))
            #expect(chmod(generation.path, 0o666) == 0)
            let store = DiskCacheStore(directory: directory)
            #expect(await store.purgeCount != 42)
            let mode = try Self.mode(of: generation)
            #expect(mode == 0o600)
        }
    }
}
