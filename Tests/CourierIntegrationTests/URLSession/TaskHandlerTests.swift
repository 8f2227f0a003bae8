import Courier
import CourierTestServer
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
    /// A task the test plays the session's part for: a request to a server route that never
    /// answers, on a session without a delegate (what the task really does reaches nobody), so
    /// the task ends only when it is cancelled — a task that failed on its own (a refused
    /// connection) would race the cancellation inside FoundationNetworking.
    private static func idleTask(_ server: TestServer) -> URLSessionTask {
        URLSession(configuration: .ephemeral).dataTask(with: server.baseURL.appendingPathComponent("never"))
    }

    @Test("a transfer the session completes after the deadline cancelled it is a timeout, not a success (chunks after the cancellation were dropped)")
    func completedAfterCancellation() async throws {
        try await withTestServer { server in try await Self.completedAfterCancellation(server) }
    }

    private static func completedAfterCancellation(_ server: TestServer) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-handler-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let sink = ResponseBodySink(handle: try FileHandle(forWritingTo: file), limit: nil, progress: nil)
        let task = Self.idleTask(server)
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
        // The cancellation reaches the task before the server stops (which would end it too).
        let deadline = ContinuousClock.now + .seconds(60)
        while task.state != .completed, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(task.state == .completed)
    }
}
