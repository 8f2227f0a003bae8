@testable import Courier
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which directories a `DiskCacheStore` trusts: in a shared place such as `/tmp`, another local
/// user could create the cache directory first, or a symbolic link to theirs, and plant entries.
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
