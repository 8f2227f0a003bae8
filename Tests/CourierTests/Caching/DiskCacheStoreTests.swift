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
struct DiskCacheStoreTests: DiskCacheTestBed {
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
            // The file is named by digests of the URL and the key; the credentials appear only as their digest.
            let file = Self.fileURL(for: entry.key, in: directory)
            let contents = try Data(contentsOf: file)
            #expect(contents.starts(with: Array("CourierHTTPCache 1\n".utf8)))
            #expect(String(decoding: contents, as: UTF8.self).contains("Bearer secret") == false)
        }
    }

    @Test("each purge (removeAll, removeEntries) changes purgeCount, so the middleware can tell a response started before one; removing one entry does not")
    func purgesCounted() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let initial = await store.purgeCount
            #expect(await store.purgeCount == initial, "stable while nothing is purged")
            await store.store(Self.entry(Self.key("/a")))
            await store.removeEntry(for: Self.key("/a"))   // one entry's invalidation: not a purge
            #expect(await store.purgeCount == initial)
            await store.removeEntries(withURLPrefix: "https://api.example.com/")
            let afterFirst = await store.purgeCount
            #expect(afterFirst != initial)
            await store.removeAll()
            let afterSecond = await store.purgeCount
            #expect(afterSecond != afterFirst && afterSecond != initial)
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
            // Four entries, notes.txt, and the purge generation the purges wrote.
            #expect(Self.fileNames(in: directory).count == 6)

            await store.removeAll()
            #expect(await present().isEmpty)
            #expect(Self.fileNames(in: directory) == [DiskCacheDirectory.purgeGenerationName, "notes.txt"])
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
