@testable import Courier
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which directories and files a `DiskCacheStore` trusts: in a shared place such as `/tmp`,
/// another local user could create the cache directory first, or a symbolic link to theirs, and
/// plant entries; in a directory that was once open to them, they could have planted files.
@Suite("DiskCacheStore: the directory it trusts")
struct DiskCacheDirectoryTrustTests: DiskCacheTestBed {
    @Test("a directory that is a symbolic link, or another user's, is not used: what is planted there is never served, nothing is written there")
    func untrustedDirectoryRefused() async throws {
        try await withDirectory { directory in
            let real = directory.deletingLastPathComponent().appendingPathComponent("planted")
            let key = Self.key("/config")
            await DiskCacheStore(directory: real).store(Self.entry(key, fill: 0x45))   // the planted entry
            #expect(FileManager.default.fileExists(atPath: Self.fileURL(for: key, in: real).path))
            try FileManager.default.createSymbolicLink(at: directory, withDestinationURL: real)
            let linked = DiskCacheStore(directory: directory)
            #expect(await linked.entry(for: key) == nil)
            await linked.store(Self.entry(Self.key("/other")))
            #expect(!FileManager.default.fileExists(atPath: Self.fileURL(for: Self.key("/other"), in: real).path))

            // Another user's directory (root can hand it over; skipped for other users).
            let theirs = directory.deletingLastPathComponent().appendingPathComponent("theirs")
            await DiskCacheStore(directory: theirs).store(Self.entry(key, fill: 0x45))
            if geteuid() == 0, chown(theirs.path, 65534, 65534) == 0 {
                #expect(await DiskCacheStore(directory: theirs).entry(for: key) == nil)
            }
        }
    }

    @Test("stores made at once on a directory that does not exist yet all trust it and agree on one digest key, 100 times over")
    func storesCreatingTheDirectoryAtOnce() async throws {
        try await withDirectory { directory in
            for round in 0..<100 {
                let fresh = directory.appendingPathComponent("round-\(round)")
                let keys = await withTaskGroup(of: [UInt8]?.self) { group in
                    for _ in 0..<8 { group.addTask { DiskCacheStore(directory: fresh).digestKey } }
                    return await group.reduce(into: [[UInt8]?]()) { $0.append($1) }
                }
                // A store that found the directory missing at its first look and present at its
                // second took it for someone else's: a random key of its own, and no cache.
                #expect(Set(keys.compactMap { $0 }).count == 1, "round \(round)")
                let stored = try Data(contentsOf: fresh.appendingPathComponent(DiskCacheDirectory.digestKeyName))
                #expect(keys.allSatisfy { $0 == Array(stored) }, "round \(round)")
            }
        }
    }

    @Test("a directory open to everyone (0777) with an entry and a key file planted in it is purged as it is tightened: the entry is not served, the key is new")
    func plantedInAnOpenDirectory() async throws {
        try await withDirectory { directory in
            let key = Self.key("/config")
            // What another local user can leave in a directory anyone may write to: a whole
            // entry for a key the app looks up, and a key file whose key they know. (Made by
            // this process: the files are this user's, so only the purge keeps them out.)
            let elsewhere = directory.deletingLastPathComponent().appendingPathComponent("elsewhere")
            await DiskCacheStore(directory: elsewhere).store(Self.entry(key, fill: 0x45))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            #expect(chmod(directory.path, 0o777) == 0)
            let planted = Self.fileURL(for: key, in: directory)
            try FileManager.default.copyItem(at: Self.fileURL(for: key, in: elsewhere), to: planted)
            let plantedKey = Data(repeating: 0x07, count: 32)
            let keyFile = directory.appendingPathComponent(DiskCacheDirectory.digestKeyName)
            #expect(FileManager.default.createFile(atPath: keyFile.path, contents: plantedKey, attributes: [.posixPermissions: 0o600]))

            let store = DiskCacheStore(directory: directory)
            #expect(await store.entry(for: key) == nil, "the planted entry was served")
            #expect(!FileManager.default.fileExists(atPath: planted.path))
            #expect(try Self.mode(of: directory) == 0o700)
            let digestKey = try #require(store.digestKey)
            #expect(digestKey != Array(plantedKey))
            #expect(try Data(contentsOf: keyFile) == Data(digestKey))
            // The tightened directory works as any other.
            await store.store(Self.entry(key))
            #expect(await store.entry(for: key) == Self.entry(key))
        }
    }

    @Test("an entry file made group- or world-writable after it was stored is not served, and is removed")
    func writableByOthers() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let key = Self.key("/a")
            let file = Self.fileURL(for: key, in: directory)
            for mode: mode_t in [0o620, 0o602] {
                await store.store(Self.entry(key))
                #expect(await store.entry(for: key) != nil)
                #expect(chmod(file.path, mode) == 0)
                #expect(await store.entry(for: key) == nil, "served at mode \(String(mode, radix: 8))")
                #expect(!FileManager.default.fileExists(atPath: file.path), "kept at mode \(String(mode, radix: 8))")
            }
        }
    }

    @Test("an entry file or a key file that belongs to another user is not read, and is replaced",
          .enabled(if: geteuid() == 0, "only root can hand a file to another user"))
    func otherUsersFiles() async throws {
        try await withDirectory { directory in
            let store = DiskCacheStore(directory: directory)
            let key = Self.key("/a")
            await store.store(Self.entry(key))
            let file = Self.fileURL(for: key, in: directory)
            #expect(chown(file.path, 65534, 65534) == 0)
            #expect(await store.entry(for: key) == nil, "another user's entry was served")
            #expect(!FileManager.default.fileExists(atPath: file.path))

            let keyFile = directory.appendingPathComponent(DiskCacheDirectory.digestKeyName)
            let theirs = Data(repeating: 0x07, count: 32)
            #expect(FileManager.default.createFile(atPath: keyFile.path, contents: theirs, attributes: [.posixPermissions: 0o600]))
            #expect(chown(keyFile.path, 65534, 65534) == 0)
            let digestKey = try #require(DiskCacheStore(directory: directory).digestKey)
            #expect(digestKey != Array(theirs))
            #expect(try Data(contentsOf: keyFile) == Data(digestKey))
        }
    }

    @Test("removeAll, removeEntries, invalidations and removeEntry through a directory swapped for a symbolic link remove nothing in the link's target")
    func noRemovalThroughALink() async throws {
        try await withDirectory { directory in
            let keys = [Self.key("/a"), Self.key("/b")]
            let store = DiskCacheStore(directory: directory)
            for key in keys { await store.store(Self.entry(key)) }
            // Another directory of this user's, with entries of its own.
            let target = directory.deletingLastPathComponent().appendingPathComponent("target")
            let other = DiskCacheStore(directory: target)
            for key in keys { await other.store(Self.entry(key)) }
            let before = Self.fileNames(in: target)
            #expect(before.count == 2)

            // The cache directory is swapped for a link to it.
            try FileManager.default.moveItem(at: directory, to: directory.deletingLastPathComponent().appendingPathComponent("moved"))
            try FileManager.default.createSymbolicLink(at: directory, withDestinationURL: target)
            await store.removeEntry(for: keys[0])
            await store.invalidateEntries(forURLs: [keys[1].url]) { _ in true }
            await store.invalidateEntries { _ in true }
            await store.removeEntries { _ in true }
            await store.removeAll()
            #expect(Self.fileNames(in: target) == before)
            for key in keys { #expect(await other.entry(for: key) != nil) }

            // Even past the check that comes first: a removal opens the directory without
            // following a link, so a swap after the check removes nothing through it either.
            #expect(DiskCacheDirectory(path: directory.path).removeFile(DiskCacheDirectory.fileName(for: keys[0])) == nil)
            #expect(Self.fileNames(in: target) == before)
        }
    }

    @Test("a directory of this user's open to others (0755) is tightened to 0700 before it is used")
    func looseDirectoryTightened() async throws {
        try await withDirectory { directory in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let store = DiskCacheStore(directory: directory)
            let key = Self.key("/a")
            await store.store(Self.entry(key))
            #expect(await store.entry(for: key) != nil)
            let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
        }
    }
}
