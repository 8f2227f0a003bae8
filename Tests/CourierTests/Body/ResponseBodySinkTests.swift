@testable import Courier
import Foundation
import Testing

/// `ResponseBodySink.adoptFile(at:)` runs where the transport is told that its download file is
/// complete — for URLSession on Linux, FoundationNetworking's work queue, which every URLSession
/// request in the process shares — so it never copies bytes there: a copy across volumes waits
/// for `completeAdoption()`, which the transport calls elsewhere.
@Suite("Response body sink")
struct ResponseBodySinkTests {
    /// A directory on another volume than the temporary directory (`/dev/shm` is a tmpfs on
    /// Linux), or `nil` when there is none.
    static let otherVolume: URL? = {
        let candidate = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        guard let here = device(of: FileManager.default.temporaryDirectory), let there = device(of: candidate), here != there,
              FileManager.default.isWritableFile(atPath: candidate.path) else { return nil }
        return candidate
    }()

    static func device(of url: URL) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.systemNumber] as? NSNumber)?.uint64Value
    }

    /// A sink writing to a new file in `directory`, and the transport's finished download file
    /// of `count` bytes, alone in a new directory in the temporary directory.
    static func makeSink(in directory: URL, count: Int) throws -> (ResponseBodySink, target: URL, location: URL, bytes: Data) {
        let target = directory.appendingPathComponent("courier-sink-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: target.path, contents: nil)
        let handle = try FileHandle(forWritingTo: target)
        let downloads = FileManager.default.temporaryDirectory.appendingPathComponent("courier-downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let location = downloads.appendingPathComponent("download.tmp")
        let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: location)
        return (ResponseBodySink(handle: handle, file: target, limit: nil, progress: nil), target, location, bytes)
    }

    @Test("on the same volume the download file is renamed into place at once")
    func sameVolume() throws {
        let (sink, target, location, bytes) = try Self.makeSink(in: FileManager.default.temporaryDirectory, count: 100_000)
        defer { Self.remove(target, location) }
        _ = try sink.adoptFile(at: location)
        #expect(!FileManager.default.fileExists(atPath: location.path))
        #expect(try Data(contentsOf: target) == bytes)
        #expect(sink.bytesWritten == Int64(bytes.count))
        try sink.completeAdoption()   // nothing left to do
        #expect(try Data(contentsOf: target) == bytes)
    }

    @Test("across volumes the file is moved aside at once and copied only by completeAdoption()",
          .enabled(if: otherVolume != nil, "needs a second volume (/dev/shm)"))
    func acrossVolumes() throws {
        let (sink, target, location, bytes) = try Self.makeSink(in: Self.otherVolume!, count: 3 * 1024 * 1024 + 5)
        defer { Self.remove(target, location) }
        _ = try sink.adoptFile(at: location)
        // The transport removes `location` once told: the bytes must be elsewhere already
        // (beside it, on its volume), and not yet copied.
        #expect(!FileManager.default.fileExists(atPath: location.path))
        #expect(try Data(contentsOf: target).isEmpty)
        #expect(Self.files(beside: location).count == 1)
        #expect(sink.bytesWritten == Int64(bytes.count))
        try sink.completeAdoption()
        #expect(try Data(contentsOf: target) == bytes)
        #expect(Self.files(beside: location).isEmpty, "the moved-aside file is removed after the copy")
    }

    @Test("a sink closed before the copy removes the moved-aside file",
          .enabled(if: otherVolume != nil, "needs a second volume (/dev/shm)"))
    func closedBeforeCopy() throws {
        let (sink, target, location, _) = try Self.makeSink(in: Self.otherVolume!, count: 1000)
        defer { Self.remove(target, location) }
        _ = try sink.adoptFile(at: location)
        #expect(Self.files(beside: location).count == 1)
        sink.close()
        #expect(Self.files(beside: location).isEmpty)
        try sink.completeAdoption()   // nothing to copy once closed
        #expect(try Data(contentsOf: target).isEmpty)
    }

    @Test("the limit is checked before anything moves")
    func limit() throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("courier-sink-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: target.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: target) }
        let location = FileManager.default.temporaryDirectory.appendingPathComponent("courier-download-\(UUID().uuidString)")
        try Data(count: 2000).write(to: location)
        defer { try? FileManager.default.removeItem(at: location) }
        let sink = ResponseBodySink(handle: try FileHandle(forWritingTo: target), file: target, limit: 1000, progress: nil)
        #expect(throws: ResponseBodySink.LimitExceeded.self) { try sink.adoptFile(at: location) }
        #expect(FileManager.default.fileExists(atPath: location.path))
    }

    /// The files in the directory of the download file `location`.
    static func files(beside location: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: location.deletingLastPathComponent().path)) ?? []
    }

    static func remove(_ target: URL, _ location: URL) {
        try? FileManager.default.removeItem(at: target)
        try? FileManager.default.removeItem(at: location.deletingLastPathComponent())
    }
}
