@testable import Courier
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files in the cache directory that are not whole entries of this store: each is a miss, and
/// is removed, never an error or a crash.
@Suite("DiskCacheStore: damaged files")
struct DiskCacheDamagedFileTests: DiskCacheTestBed {
    @Test("a truncated entry file is a miss and is removed, wherever it was cut")
    func truncatedFile() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let key = Self.key("/truncated")
            await store.store(Self.entry(key, bodySize: 500))
            let file = Self.fileURL(for: key, in: directory)
            let whole = try Data(contentsOf: file)
            for length in [0, 5, 19, 23, 24, 60, whole.count - 500, whole.count - 1] {
                try whole.prefix(length).write(to: file)
                #expect(await store.entry(for: key) == nil, "cut at \(length) of \(whole.count)")
                #expect(!FileManager.default.fileExists(atPath: file.path), "cut at \(length)")
            }
            // Bytes after the body are damage too.
            try (whole + Data([0])).write(to: file)
            #expect(await store.entry(for: key) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test("metadata announcing a body of Int.max bytes is a miss, not an arithmetic trap")
    func hugeBodyLength() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let key = Self.key("/huge")
            await store.store(Self.entry(key))
            try Self.rewriteMetadata(of: Self.fileURL(for: key, in: directory)) { json in
                let range = try #require(json.range(of: #""bodyLength":[0-9]+"#, options: .regularExpression))
                json.replaceSubrange(range, with: "\"bodyLength\":\(Int.max)")
            }
            #expect(await store.entry(for: key) == nil)
            await store.removeEntries { _ in false }
        }
    }

    @Test("a file of garbage, with the magic line but damaged metadata, a symbolic link or a FIFO is a miss and is removed",
          .timeLimit(.minutes(1)))
    func garbageFile() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let key = Self.key("/garbage")
            await store.store(Self.entry(Self.key("/other")))
            let file = Self.fileURL(for: key, in: directory)
            var generator = SystemRandomNumberGenerator()
            let magic = Data("CourierHTTPCache 1\n".utf8)
            let metadata = Data(#"{"key":{"namespace":"default","method":"GET","url":"x"},"status":99999,"#.utf8)
            let candidates: [Data] = [
                Data((0..<4_096).map { _ in UInt8.random(in: 0...255, using: &generator) }),
                Data("CourierHTTPCache 2\n".utf8) + Data(repeating: 0, count: 100),
                magic + Data([0xFF, 0xFF, 0xFF, 0xFF]) + Data(repeating: 0x20, count: 100),
                magic + Data([0, 0, 0, UInt8(metadata.count)]) + metadata,
                magic + Data([0, 0, 0, 2]) + Data("{}".utf8),
            ]
            for garbage in candidates {
                try garbage.write(to: file)
                #expect(await store.entry(for: key) == nil)
                #expect(!FileManager.default.fileExists(atPath: file.path))
            }
            // A symbolic link is not followed, even to a valid entry for the key.
            let elsewhere = directory.deletingLastPathComponent().appendingPathComponent("elsewhere.bin")
            await store.store(Self.entry(key))
            try FileManager.default.moveItem(at: file, to: elsewhere)
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: elsewhere)
            #expect(await store.entry(for: key) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(FileManager.default.fileExists(atPath: elsewhere.path))
            // A FIFO does not block the reader.
            #expect(mkfifo(file.path, 0o600) == 0)
            #expect(await store.entry(for: key) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            // A directory where an entry file should be is a miss, not an error.
            try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            #expect(await store.entry(for: key) == nil)
            #expect(await store.entry(for: Self.key("/other")) != nil)
        }
    }

    @Test("a file holding another key's entry (a renamed file, a digest collision) is a miss and is removed")
    func otherKeysContent() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let first = Self.key("/first"), second = Self.key("/second")
            await store.store(Self.entry(first))
            await store.store(Self.entry(second))
            try FileManager.default.removeItem(at: Self.fileURL(for: second, in: directory))
            try FileManager.default.moveItem(at: Self.fileURL(for: first, in: directory), to: Self.fileURL(for: second, in: directory))
            #expect(await store.entry(for: second) == nil)
            #expect(await store.entry(for: first) == nil)
            #expect(Self.fileNames(in: directory).isEmpty)
        }
    }

    @Test("a leftover temporary file (a writer that crashed) is never read and is removed after a minute")
    func crashMidWrite() async throws {
        try await withDirectory { directory in
            let key = Self.key("/crashed")
            let seed = DiskCacheStore(directory: directory)
            await seed.store(Self.entry(key, bodySize: 300))
            let complete = try Data(contentsOf: Self.fileURL(for: key, in: directory))
            try FileManager.default.removeItem(at: Self.fileURL(for: key, in: directory))
            // What a writer leaves when it dies mid-write: half an entry under a temporary name.
            let stale = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
            let young = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
            try complete.prefix(complete.count / 2).write(to: stale)
            try complete.prefix(complete.count / 2).write(to: young)
            try Self.setModificationDate(Date(timeIntervalSinceNow: -120), of: stale)

            let store = DiskCacheStore(directory: directory)
            #expect(await store.entry(for: key) == nil)
            // The store's first write lists the directory.
            await store.store(Self.entry(Self.key("/next")))
            #expect(!FileManager.default.fileExists(atPath: stale.path))
            // A temporary file younger than a minute may be a write in progress in another process.
            #expect(FileManager.default.fileExists(atPath: young.path))
            #expect(await store.entry(for: key) == nil)
        }
    }
}
