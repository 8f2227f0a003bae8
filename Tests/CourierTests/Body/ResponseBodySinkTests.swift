@testable import Courier
import Foundation
import Testing

/// The sink a transport writes a download to: its progress never goes backwards, whoever
/// reports it (the transport's queue, or the client's "nothing yet" at the start).
@Suite("ResponseBodySink")
struct ResponseBodySinkTests {
    private func makeSink(_ seen: Locked<[Int64]>) throws -> (ResponseBodySink, URL) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-sink-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let sink = ResponseBodySink(handle: try FileHandle(forWritingTo: file), limit: nil,
                                    progress: { progress in seen.withLock { $0.append(progress.completedBytes) } })
        return (sink, file)
    }

    @Test("a report below one already made is dropped: the client's start report arriving after the transport's first")
    func neverBackwards() throws {
        let seen = Locked<[Int64]>([])
        let (sink, file) = try makeSink(seen)
        defer { try? FileManager.default.removeItem(at: file) }
        try sink.begin()
        let first = try #require(try sink.write(Data(count: 100)))
        sink.report(first)
        sink.report(TransferProgress(completedBytes: 0, totalBytes: nil))   // late
        #expect(seen.withLock { $0 } == [100])
    }

    @Test("a second response starts the file again, and its progress from 0")
    func restartReportsAgain() throws {
        let seen = Locked<[Int64]>([])
        let (sink, file) = try makeSink(seen)
        defer { try? FileManager.default.removeItem(at: file) }
        try sink.begin()
        sink.report(try #require(try sink.write(Data(count: 100))))
        try sink.begin()   // retried after the connection was cut
        sink.report(try #require(try sink.write(Data(count: 10))))
        #expect(seen.withLock { $0 } == [100, 10])
    }

    @Test("a report of the first response that arrives after the second began is dropped (it would hide the second's progress)")
    func staleReportAfterRestart() throws {
        let seen = Locked<[Int64]>([])
        let (sink, file) = try makeSink(seen)
        defer { try? FileManager.default.removeItem(at: file) }
        try sink.begin()
        let stale = try #require(try sink.write(Data(count: 100)))   // still queued for the handler
        try sink.begin()   // retried after the connection was cut
        sink.report(stale)
        sink.report(try #require(try sink.write(Data(count: 10))))
        sink.report(try #require(try sink.write(Data(count: 10))))
        #expect(seen.withLock { $0 } == [10, 20])
    }

    @Test("a new response's begin() never waits for a handler still running (on the session's queue, that could deadlock)")
    func beginDoesNotWaitForAHandler() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-sink-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let sink = ResponseBodySink(handle: try FileHandle(forWritingTo: file), limit: nil,
                                    progress: { _ in entered.signal(); release.wait() })
        try sink.begin()
        let written = try #require(try sink.write(Data(count: 10)))
        DispatchQueue.global().async { sink.report(written) }
        entered.wait()                                   // the handler is running
        let begun = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { try? sink.begin(); begun.signal() }
        let result = begun.wait(timeout: .now() + 10)    // a hang guard, not a timing measurement
        release.signal()
        #expect(result == .success, "begin() waited for the handler")
    }
}
