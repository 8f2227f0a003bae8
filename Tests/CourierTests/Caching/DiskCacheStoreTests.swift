@testable import Courier
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("DiskCacheStore")
struct DiskCacheStoreTests {
    // MARK: Helpers

    /// A directory path under the temporary directory that does not exist yet (the store
    /// creates it), removed when `body` returns.
    private func withDirectory(_ body: (URL) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-disk-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await body(root.appendingPathComponent("cache"))
    }

    private static func key(_ path: String, namespace: String = "default", credentials: String? = nil) -> HTTPCacheKey {
        HTTPCacheKey(namespace: namespace, method: "GET", url: "https://api.example.com\(path)", credentials: credentials)
    }

    private static func entry(_ key: HTTPCacheKey, bodySize: Int = 16, fill: UInt8 = 0x61) -> CachedHTTPResponse {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.eTag] = "\"\(key.url.count)\""
        return CachedHTTPResponse(
            key: key, response: HTTPResponse(status: .ok, headerFields: fields), body: Data(repeating: fill, count: bodySize),
            requestDate: Date(timeIntervalSinceReferenceDate: 785_000_000), responseDate: Date(timeIntervalSinceReferenceDate: 785_000_001)
        )
    }

    private static func fileURL(for key: HTTPCacheKey, in directory: URL) -> URL {
        directory.appendingPathComponent(SHA256.hex(key.text) + ".cache")
    }

    private static func fileNames(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    private static func totalSize(of directory: URL) throws -> Int {
        try fileNames(in: directory).reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    private static func setModificationDate(_ date: Date, of file: URL) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: file.path)
    }

    private static func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
    }

    // MARK: Round trip and misses

    @Test("an entry reads back whole: status, reason, fields in order with their case, body, dates, Vary values")
    func roundTrip() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            var fields = HTTPFields()
            fields.append(HTTPField(name: .contentType, value: "application/json; charset=utf-8"))
            fields.append(HTTPField(name: HTTPField.Name("Link")!, value: "</page/2>; rel=\"next\""))
            fields.append(HTTPField(name: HTTPField.Name("X-Trace-ID")!, value: "abc"))
            fields.append(HTTPField(name: HTTPField.Name("link")!, value: "</page/9>; rel=\"last\""))
            fields.append(HTTPField(name: .cacheControl, value: "max-age=60"))
            fields.append(HTTPField(name: .vary, value: "Accept, Accept-Language"))
            let body = Data((0..<2_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
            let entry = CachedHTTPResponse(
                key: Self.key("/v1/users?page=1", credentials: SHA256.hex("Bearer secret")),
                response: HTTPResponse(status: .init(code: 203, reasonPhrase: "Non-Authoritative Information"), headerFields: fields),
                body: body,
                requestDate: Date(timeIntervalSinceReferenceDate: 785_123_456.123_456_7),
                responseDate: Date(),
                varyingRequestFields: ["accept": "application/json", "accept-language": "de-CH, en;q=0.5"]
            )
            await store.store(entry)

            let loaded = try #require(await store.entry(for: entry.key))
            #expect(loaded == entry)
            #expect(loaded.response.status.code == 203)
            #expect(loaded.response.status.reasonPhrase == "Non-Authoritative Information")
            #expect(loaded.response.headerFields.map { [$0.name.rawName, $0.value] } == fields.map { [$0.name.rawName, $0.value] })
            #expect(loaded.body == body)
            #expect(loaded.requestDate == entry.requestDate)
            #expect(loaded.responseDate == entry.responseDate)
            #expect(loaded.varyingRequestFields == entry.varyingRequestFields)
            // A second store on the directory (a new process) reads it too.
            #expect(await DiskCacheStore(directory: directory).entry(for: entry.key) == entry)
            // The file is named by the key's digest; the credentials appear only as their digest.
            let file = Self.fileURL(for: entry.key, in: directory)
            let contents = try Data(contentsOf: file)
            #expect(contents.starts(with: Array("CourierHTTPCache 1\n".utf8)))
            #expect(String(decoding: contents, as: UTF8.self).contains("Bearer secret") == false)
        }
    }

    @Test("purges are counted (removeAll, removeEntries), so the middleware can tell a response started before one")
    func purgesCounted() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            #expect(await store.purgeCount == 0)
            await store.store(Self.entry(Self.key("/a")))
            await store.removeEntry(for: Self.key("/a"))   // one entry's invalidation: not a purge
            #expect(await store.purgeCount == 0)
            await store.removeEntries(withURLPrefix: "https://api.example.com/")
            await store.removeAll()
            #expect(await store.purgeCount == 2)
        }
    }

    @Test("storing under a key replaces the entry; an empty body round-trips")
    func replace() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let key = Self.key("/a")
            await store.store(Self.entry(key, bodySize: 100, fill: 1))
            await store.store(Self.entry(key, bodySize: 0))
            #expect(await store.entry(for: key)?.body == Data())
            #expect(Self.fileNames(in: directory).count == 1)
        }
    }

    @Test("an unknown key is a miss, in a missing directory and in a filled one")
    func missForUnknownKey() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            #expect(await store.entry(for: Self.key("/a")) == nil)
            await store.store(Self.entry(Self.key("/a")))
            #expect(await store.entry(for: Self.key("/b")) == nil)
            #expect(await store.entry(for: Self.key("/a", namespace: "other")) == nil)
            #expect(await store.entry(for: Self.key("/a", credentials: SHA256.hex("token"))) == nil)
        }
    }

    // MARK: Damaged files

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
            let file = Self.fileURL(for: key, in: directory)
            let data = try Data(contentsOf: file)
            let prefixSize = "CourierHTTPCache 1\n".utf8.count + 4
            let length = data[prefixSize - 4..<prefixSize].reduce(0) { $0 << 8 | Int($1) }
            var json = String(decoding: data[prefixSize..<prefixSize + length], as: UTF8.self)
            let range = try #require(json.range(of: #""bodyLength":[0-9]+"#, options: .regularExpression))
            json.replaceSubrange(range, with: "\"bodyLength\":\(Int.max)")
            let metadata = Data(json.utf8)
            let count = metadata.count
            var tampered = Data("CourierHTTPCache 1\n".utf8)
            tampered += Data([UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
            tampered += metadata + data[(prefixSize + length)...]
            try tampered.write(to: file)
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

    // MARK: Size bound

    @Test("an entry larger than maxBytes is not stored, and the entry it would replace is removed")
    func entryLargerThanMaxBytes() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory, maxBytes: 1_000)
            let key = Self.key("/large")
            await store.store(Self.entry(key, bodySize: 100))
            #expect(await store.entry(for: key) != nil)
            await store.store(Self.entry(key, bodySize: 1_000))
            #expect(await store.entry(for: key) == nil)
            #expect(Self.fileNames(in: directory).isEmpty)
            await store.store(Self.entry(Self.key("/huge"), bodySize: 100_000))
            #expect(Self.fileNames(in: directory).isEmpty)
        }
    }

    @Test("eviction keeps the directory under maxBytes and removes the least recently used entries first")
    func evictionLeastRecentlyUsed() async throws {
        try await withDirectory { directory in
            let maxBytes = 10_000
            let store = DiskCacheStore(directory: directory, maxBytes: maxBytes)
            let keys = (0..<4).map { Self.key("/item/\($0)") }
            for key in keys { await store.store(Self.entry(key, bodySize: 2_000)) }
            #expect(Self.fileNames(in: directory).count == 4)
            // Distinct, old modification times (the file system's clock is coarser than a write).
            for (index, key) in keys.enumerated() {
                try Self.setModificationDate(Date(timeIntervalSinceNow: Double(index - 10) * 3_600), of: Self.fileURL(for: key, in: directory))
            }
            // Reading the oldest makes it the most recently used.
            #expect(await store.entry(for: keys[0]) != nil)

            let newest = Self.key("/item/new")
            await store.store(Self.entry(newest, bodySize: 2_000))
            #expect(try Self.totalSize(of: directory) <= maxBytes)
            #expect(await store.entry(for: keys[0]) != nil, "read before the overflow, so kept")
            #expect(await store.entry(for: newest) != nil, "just written, so kept")
            #expect(await store.entry(for: keys[1]) == nil, "least recently used, so evicted")
            #expect(await store.entry(for: keys[3]) != nil)

            for index in 0..<40 {
                await store.store(Self.entry(Self.key("/more/\(index)"), bodySize: 900))
                #expect(try Self.totalSize(of: directory) <= maxBytes)
            }
            #expect(await store.entry(for: Self.key("/more/39")) != nil, "just written, so kept")
        }
    }

    // MARK: Permissions and sharing

    @Test("the directory is created owner-only (0700) and entry files are 0600")
    func ownerOnlyPermissions() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory.appendingPathComponent("nested"))
            let key = Self.key("/private")
            await store.store(Self.entry(key))
            let directoryMode = try Self.mode(of: directory.appendingPathComponent("nested"))
            let fileMode = try Self.mode(of: Self.fileURL(for: key, in: directory.appendingPathComponent("nested")))
            #expect(directoryMode == 0o700)
            #expect(fileMode == 0o600)
            // A file written into the existing directory too.
            let second = Self.key("/private/2")
            await store.store(Self.entry(second))
            let secondMode = try Self.mode(of: Self.fileURL(for: second, in: directory.appendingPathComponent("nested")))
            #expect(secondMode == 0o600)
        }
    }

    @Test("two stores on one directory: one reads what the other wrote; concurrent writes leave every file whole")
    func twoStoresShareADirectory() async throws {
        try await withDirectory { directory in
            let first = DiskCacheStore(directory: directory, maxBytes: 40_000)
            let second = DiskCacheStore(directory: directory, maxBytes: 40_000)
            let shared = Self.key("/shared")
            await first.store(Self.entry(shared))
            #expect(await second.entry(for: shared) == Self.entry(shared))

            let keys = (0..<24).map { Self.key("/concurrent/\($0)") }
            await withTaskGroup(of: Void.self) { group in
                for round in 0..<8 {
                    for (index, key) in keys.enumerated() {
                        let store = (round + index) % 2 == 0 ? first : second
                        group.addTask {
                            // Each body is the key's URL repeated, so a mixed-up file shows.
                            let body = Data(String(repeating: key.url + "|", count: 20 + round * 10).utf8)
                            var entry = Self.entry(key)
                            entry.body = body
                            await store.store(entry)
                            _ = await store.entry(for: keys[(index + round) % keys.count])
                            if round == 7, index % 5 == 0 { await store.removeEntry(for: key) }
                        }
                    }
                }
            }
            let reader = DiskCacheStore(directory: directory, maxBytes: 40_000)
            var found = 0
            for key in keys {
                let exists = FileManager.default.fileExists(atPath: Self.fileURL(for: key, in: directory).path)
                let entry = await reader.entry(for: key)
                #expect(exists == (entry != nil), "\(key.url): a file that exists must read as an entry")
                if let entry {
                    found += 1
                    #expect(entry.key == key)
                    #expect(String(decoding: entry.body, as: UTF8.self).split(separator: "|").allSatisfy { $0 == key.url })
                }
            }
            #expect(found > 0)
            #expect(Self.fileNames(in: directory).allSatisfy { !$0.hasPrefix(".tmp-") })
        }
    }

    @Test("while two stores rewrite an entry, every concurrent read finds a whole entry, never a missing or half-written one")
    func readersNeverSeeHalfAnEntry() async throws {
        try await withDirectory { directory in
            let writers = [DiskCacheStore(directory: directory), DiskCacheStore(directory: directory)]
            let reader = DiskCacheStore(directory: directory)
            let key = Self.key("/rewritten")
            let size = 64 << 10
            await writers[0].store(Self.entry(key, bodySize: size, fill: 0))
            let torn = await withTaskGroup(of: Int.self) { group in
                for index in 1...24 {
                    group.addTask {
                        await writers[index % 2].store(Self.entry(key, bodySize: size, fill: UInt8(index)))
                        return 0
                    }
                    group.addTask {
                        var bad = 0
                        for _ in 0..<3 {
                            guard let entry = await reader.entry(for: key) else { bad += 1; continue }
                            // `body` copies the bytes at each read: read it once (in the
                            // closure it made this check quadratic, seconds of CPU).
                            let body = entry.body
                            if body.count != size || !body.allSatisfy({ $0 == body.first }) { bad += 1 }
                        }
                        return bad
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(torn == 0)
        }
    }

    // MARK: Removal

    @Test("removeEntry, removeEntries(where:), by URL, by prefix, by namespace, and removeAll")
    func removal() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let user42 = Self.key("/v1/users/42/posts")
            let user42Alice = Self.key("/v1/users/42/posts", credentials: SHA256.hex("alice"))
            let user42Profile = Self.key("/v1/users/42/profile")
            let user7 = Self.key("/v1/users/7/posts")
            let tenant = Self.key("/v1/users/7/posts", namespace: "tenant-b")
            let status = Self.key("/status")
            let all = [user42, user42Alice, user42Profile, user7, tenant, status]
            func present() async -> [HTTPCacheKey] {
                var keys: [HTTPCacheKey] = []
                for key in all where await store.entry(for: key) != nil { keys.append(key) }
                return keys
            }
            for key in all { await store.store(Self.entry(key)) }
            // A file that is not the cache's is left alone.
            try Data("keep".utf8).write(to: directory.appendingPathComponent("notes.txt"))

            await store.removeEntry(for: status)
            #expect(await present() == [user42, user42Alice, user42Profile, user7, tenant])
            await store.removeEntries(for: URL(string: "https://api.example.com/v1/users/42/posts")!)
            #expect(await present() == [user42Profile, user7, tenant])
            await store.removeEntries(inNamespace: "tenant-b")
            #expect(await present() == [user42Profile, user7])
            await store.removeEntries(withURLPrefix: "https://api.example.com/v1/users/42/")
            #expect(await present() == [user7])
            for key in all { await store.store(Self.entry(key)) }
            await store.removeEntries { $0.credentials != nil }
            #expect(await present() == [user42, user42Profile, user7, tenant, status])
            // A damaged file met while matching is removed too.
            try Data("damaged".utf8).write(to: directory.appendingPathComponent(String(repeating: "a", count: 64) + ".cache"))
            await store.removeEntries { $0.url.hasSuffix("/status") }
            #expect(await present() == [user42, user42Profile, user7, tenant])
            #expect(Self.fileNames(in: directory).count == 5)

            await store.removeAll()
            #expect(await present().isEmpty)
            #expect(Self.fileNames(in: directory) == ["notes.txt"])
            // The store keeps working after removeAll, and on a directory removed under it.
            await store.store(Self.entry(status))
            #expect(await present() == [status])
            try FileManager.default.removeItem(at: directory)
            #expect(await present().isEmpty)
            await store.store(Self.entry(status))
            #expect(await present() == [status])
        }
    }
}
