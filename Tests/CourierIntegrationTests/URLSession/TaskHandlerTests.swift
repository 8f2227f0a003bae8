import Courier
@testable import CourierURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import Testing

/// `TaskHandler` driven event by event, as the session's delegate drives it, to reach orders of
/// events a real server cannot be made to produce on demand.
@Suite("URLSession task handler")
struct TaskHandlerTests {
    /// A task that never runs: the test plays the session's part.
    private static func idleTask() -> URLSessionTask {
        URLSession(configuration: .ephemeral).dataTask(with: URL(string: "http://127.0.0.1:9/unused")!)
    }

    @Test("a transfer the session completes after the deadline cancelled it is a timeout, not a success (chunks after the cancellation were dropped)")
    func completedAfterCancellation() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-handler-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let sink = ResponseBodySink(handle: try FileHandle(forWritingTo: file), limit: nil, progress: nil)
        let task = Self.idleTask()
        defer { task.cancel() }
        let handler = TaskHandler(task: task, deadlines: DeadlineWatch(), isHead: false, sink: sink, sinkStatuses: [200])
        let head = try await withCheckedThrowingContinuation { continuation in
            handler.start(continuation: continuation, deadline: .now + .seconds(60))
            handler.didReceive(response: HTTPURLResponse(url: URL(string: "http://127.0.0.1:9/unused")!, statusCode: 200,
                                                         httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "20"])!)
        }
        handler.didReceive(data: Data(count: 10))
        handler.cancel(reason: .timeout)          // the deadline passes; the session has not seen the cancellation yet
        handler.didReceive(data: Data(count: 10)) // dropped: the request is being cancelled
        handler.didComplete(error: nil)           // the session finished the transfer first
        #expect(head.0.status == .ok)
        #expect(sink.bytesWritten == 10)
        let body = try #require(head.1)
        await #expect(throws: TransportError.self) {
            for try await _ in body {}
        }
    }
}
