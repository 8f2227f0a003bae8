import Courier
import CourierTestServer
@testable import CourierURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Where `URLSessionTransport`'s session delegate runs, and where the caller's progress handlers
/// run. On Linux the delegate runs in place on FoundationNetworking's work queue (no operation,
/// no thread hand-off, no chunk waiting in a queue with its bytes); progress handlers run on a
/// queue of their own, so a handler that uses URLSession cannot deadlock the process, and the
/// last report comes before the request returns.
@Suite("The URLSession delegate queue and progress handlers")
struct DelegateQueueTests {
    /// A handler that creates a URLSession task: on FoundationNetworking that does `workQueue.sync`
    /// on a queue that targets the process-wide URLSession queue, which deadlocks (or traps) if
    /// the handler runs on that queue — as it would if the inline delegate called it directly.
    private static func useURLSession(_ session: URLSession, _ url: URL) {
        session.dataTask(with: url).cancel()
    }

    @Test("an upload's progress handler may use URLSession; 100 % is reported before upload returns",
          .timeLimit(.minutes(1)), arguments: TransportKind.allCases)
    func uploadProgressHandlerUsesURLSession(_ kind: TransportKind) async throws {
        let size = 4 * 1024 * 1024
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.bin")
        try await Transfers.writePayload(count: size, to: file, checksummed: false)
        let other = URLSession(configuration: .ephemeral)
        defer { other.invalidateAndCancel() }
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: Transfers.transport(kind))
            let log = ProgressLog()
            let url = server.baseURL
            let receipt = try await client.upload(Request<TransferReceipt>(method: .put, path: "/transfers/upload/\(UUID().uuidString)"),
                                                  fromFile: file) { progress in
                Self.useURLSession(other, url)
                log.append(progress)
            }
            #expect(receipt.bytes == "\(size)")
            #expect(log.last == TransferProgress(completedBytes: Int64(size), totalBytes: Int64(size)))
        }
    }

    /// URLSession only: over AsyncHTTPClient the handler runs in the task reading the body, and a
    /// handler that blocks there holds one of the few threads of Swift's cooperative pool, which
    /// the tests running beside this one need (the progress handler's documentation says: keep it
    /// quick).
    @Test("a progress handler that blocks holds back its own request only", .timeLimit(.minutes(3)),
          arguments: [TransportKind.urlSession])
    func blockedProgressHandlerHoldsBackItsOwnRequest(_ kind: TransportKind) async throws {
        let size = 1024 * 1024
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.bin")
        try await Transfers.writePayload(count: size, to: file, checksummed: false)
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: Transfers.transport(kind))
            let release = DispatchSemaphore(value: 0)
            let blocked = Locked(false)
            // The first request's handler blocks (a thread, up to 300 s) until the second request is
            // done: a second request held back by it would take that long, far past the hang guard
            // below (a loaded CI machine can stall a test for 20 s).
            let first = Task {
                try await client.upload(Request<TransferReceipt>(method: .put, path: "/transfers/upload/\(UUID().uuidString)"),
                                        fromFile: file) { _ in
                    guard blocked.withLock({ blocked in defer { blocked = true }; return !blocked }) else { return }
                    _ = release.wait(timeout: .now() + 300)
                }
            }
            #expect(try await Transfers.eventually { blocked.withLock { $0 } })
            let start = ContinuousClock.now
            let second = try await client.upload(Request<TransferReceipt>(method: .put, path: "/transfers/upload/\(UUID().uuidString)"),
                                                 fromFile: file) { _ in }
            let took = start.duration(to: .now)
            release.signal()
            #expect(second.bytes == "\(size)")
            #expect(took < .seconds(90), "the second request waited \(took) for the first one's progress handler")
            #expect(try await first.value.bytes == "\(size)")
        }
    }

    @Test("a download's progress handler may use URLSession; 100 % is reported before download returns",
          .timeLimit(.minutes(1)), arguments: TransportKind.allCases)
    func downloadProgressHandlerUsesURLSession(_ kind: TransportKind) async throws {
        let size = 4 * 1024 * 1024
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = URLSession(configuration: .ephemeral)
        defer { other.invalidateAndCancel() }
        try await withTestServer { server in
            let client = kind.client(for: server)
            let log = ProgressLog()
            let url = server.baseURL
            let result = try await client.download(Request<Data>(path: "/transfers/download/\(UUID().uuidString)/\(size)"),
                                                   to: dir.appendingPathComponent("d")) { progress in
                Self.useURLSession(other, url)
                log.append(progress)
            }
            #expect(result.byteCount == Int64(size))
            #expect(log.last?.completedBytes == Int64(size))
        }
    }
}

#if canImport(FoundationNetworking)
/// A session delegate that drops the last reference to a `URLSessionTransport` when the head of
/// its request arrives — on FoundationNetworking's work queue, since it runs on an
/// ``InlineDelegateQueue`` — and reports the request's end.
private final class TransportDropper: NSObject, URLSessionDataDelegate, Sendable {
    let transport = Locked<URLSessionTransport?>(URLSessionTransport())
    let ended = Locked<CheckedContinuation<(any Error)?, Never>?>(nil)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let dropped = transport.withLock { transport -> URLSessionTransport? in
            defer { transport = nil }
            return transport
        }
        _ = dropped   // released here, on the work queue
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        ended.withLock { $0 }?.resume(returning: error)
    }
}

extension DelegateQueueTests {
    /// The last reference to a transport can go on FoundationNetworking's work queue (with the
    /// handler of a request whose progress closure captured the client). Its `deinit` calls
    /// `finishTasksAndInvalidate()`, which only schedules work on the session's queue; a
    /// `deinit` that waited there (`invalidateAndCancel()` does `workQueue.sync`) would trap.
    @Test("a transport released on FoundationNetworking's work queue does not deadlock", .timeLimit(.minutes(1)))
    func transportReleasedOnTheWorkQueue() async throws {
        try await withTestServer { server in
            let dropper = TransportDropper()
            let session = URLSession(configuration: .ephemeral, delegate: dropper, delegateQueue: InlineDelegateQueue(label: "test"))
            defer { session.finishTasksAndInvalidate() }
            let error = await withCheckedContinuation { continuation in
                dropper.ended.withLock { $0 = continuation }
                session.dataTask(with: server.baseURL.appendingPathComponent("users/1")).resume()
            }
            #expect(error == nil)
            #expect(dropper.transport.withLock { $0 } == nil)
        }
    }
}
#endif
