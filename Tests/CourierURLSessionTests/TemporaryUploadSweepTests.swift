@testable import CourierURLSession
import Foundation
import Testing

/// Upload files a crashed process left in the temporary directory are swept.
@Suite("URLSession temporary upload files")
struct TemporaryUploadSweepTests {
    @Test("stale courier-upload files of this user are removed; fresh ones, other names and links stay")
    func sweepsStaleFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = Date().addingTimeInterval(-2 * TemporaryUploadSweep.staleAfter)
        func make(_ name: String, modified: Date) throws {
            let url = directory.appendingPathComponent(name)
            try Data("x".utf8).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: url.path)
        }
        try make("courier-upload-stale.body", modified: old)
        try make("courier-upload-fresh.body", modified: Date())
        try make("other-stale.body", modified: old)
        let target = directory.appendingPathComponent("target")
        try make("target", modified: old)
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("courier-upload-link.body").path, withDestinationPath: target.path)

        let removed = TemporaryUploadSweep.sweep(directory, now: Date())
        #expect(removed == ["courier-upload-stale.body"])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["courier-upload-fresh.body", "courier-upload-link.body", "other-stale.body", "target"])
    }
}
