import Courier
import CourierTestServer
import CourierURLSession
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// `download(_:to:)` over URLSession, where FoundationNetworking's download tasks went wrong:
/// a redirect with a body trapped the process (FoundationNetworking force-unwraps a data task
/// that a download task does not have), and the session's own download files were never
/// removed when the download failed. The transport now writes every download through a data
/// task, chunk by chunk, to the client's file.
@Suite("Downloads over URLSession")
struct URLSessionDownloadTests {
    @Test("a download whose answer redirects with a body (as nginx and Express send) follows it",
          .timeLimit(.minutes(1)), arguments: TransportKind.allCases)
    func redirectWithBody(_ kind: TransportKind) async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { server in
            let client = kind.client(for: server)
            let file = dir.appendingPathComponent("d")
            let result = try await client.download(Request<Data>(path: "/redirect-to?url=/bytes/1000&body=%3Ca%3Emoved%3C/a%3E"), to: file)
            #expect(result.response.status.code == 200)
            #expect(try Data(contentsOf: file).count == 1000)
        }
    }

    @Test("a failed download leaves no file of the session's behind", .timeLimit(.minutes(1)))
    func noFilesLeftBehind() async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = Self.sessionDownloadFiles()
        try await withTestServer { server in
            let client = TransportKind.urlSession.client(for: server)
            // An error status with a 4 MiB body.
            let error = await #expect(throws: APIError.self) {
                try await client.download(Request<Data>(path: "/transfers/download/\(UUID().uuidString)/\(4 << 20)?status=500"),
                                          to: dir.appendingPathComponent("d"))
            }
            #expect(error?.statusCode == 500)
            // A download cut off by its deadline.
            var slow = Request<Data>(path: "/trickle?chunks=100&ms=50")
            slow.options.timeout = .milliseconds(500)
            await #expect(throws: APIError.self) { try await client.download(slow, to: dir.appendingPathComponent("e")) }
        }
        #expect(Self.sessionDownloadFiles().subtracting(before).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test("a download answered 401 with an authentication challenge fails with the 401, not a cancellation",
          .timeLimit(.minutes(1)), arguments: TransportKind.allCases)
    func challengedDownload(_ kind: TransportKind) async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { server in
            let client = kind.client(for: server)
            let error = await #expect(throws: APIError.self) {
                try await client.download(Request<Data>(path: "/auth/challenge/basic"), to: dir.appendingPathComponent("d"))
            }
            #expect(error?.statusCode == 401)
        }
    }

    @Test("a 3xx without a Location is handed over as the response it is", .timeLimit(.minutes(1)),
          arguments: TransportKind.allCases)
    func redirectWithoutLocation(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let client = kind.client(for: server)
            let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/status/302")) }
            #expect(error?.kind == .httpError)
            #expect(error?.statusCode == 302)
        }
    }

    @Test("a download retried after its connection was cut is written whole, not after the first attempt's bytes; progress knows the total",
          .timeLimit(.minutes(1)), arguments: TransportKind.allCases)
    func retriedDownload(_ kind: TransportKind) async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let size = 100_000
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport(),
                                   middleware: [RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(10)))])
            let file = dir.appendingPathComponent("d")
            let totals = Locked<[Int64?]>([])
            let result = try await client.download(Request<Data>(path: "/transfers/download/\(UUID().uuidString)/\(size)?cutFirst=50000"),
                                                   to: file) { progress in totals.withLock { $0.append(progress.totalBytes) } }
            #expect(result.byteCount == Int64(size))
            let data = try Data(contentsOf: file)
            #expect(data.count == size)
            #expect(data.allSatisfy { $0 == UInt8(ascii: "a") })
            #expect(totals.withLock { $0 }.allSatisfy { $0 == Int64(size) }, "every report knows the Content-Length")
        }
    }

    /// URLSession only: on Linux FoundationNetworking cannot pause a transfer, so the handlers
    /// run on a queue of their own while the body is written (AsyncHTTPClient's back-pressure
    /// slows the transfer to the handler's pace instead).
    @Test("a progress handler slower than the chunks arrive gets the newest figures, not a backlog that grows with the download",
          .timeLimit(.minutes(1)))
    func slowProgressHandler() async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let size = 32 * 1024 * 1024
        try await withTestServer { server in
            let client = TransportKind.urlSession.client(for: server)
            let reports = Locked<[Int64]>([])
            let result = try await client.download(Request<Data>(path: "/transfers/download/\(UUID().uuidString)/\(size)"),
                                                   to: dir.appendingPathComponent("d")) { progress in
                reports.withLock { $0.append(progress.completedBytes) }
                Thread.sleep(forTimeInterval: 0.02)   // a handler that waits on something
            }
            #expect(result.byteCount == Int64(size))
            let seen = reports.withLock { $0 }
            // Chunks arrive 16 KiB or smaller: 2,048 or more of them. One report each (before
            // coalescing: 2,049) kept this download waiting 40 s for its handler, with a closure
            // per chunk queued meanwhile; coalesced, the handler runs about once per 20 ms of
            // transfer (a few hundred times even on a loaded two-core machine).
            #expect(seen.count < 1024, "\(seen.count) reports for \(size / 16_384) chunks or more")
            #expect(seen.last == Int64(size), "the last report is the whole body")
            #expect(seen == seen.sorted(), "reports rise")
        }
    }

    /// FoundationNetworking's download files: `<UUID>.tmp` in the temporary directory.
    static func sessionDownloadFiles() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []
        return Set(names.filter { $0.hasSuffix(".tmp") && UUID(uuidString: String($0.dropLast(4))) != nil })
    }
}

/// A reader of a streamed body that gives up ends the transfer, whatever way it gives up.
@Suite("Streamed bodies over URLSession: a reader that gives up ends the transfer")
struct URLSessionAbandonedReaderTests {
    @Test("a bytes(for:) reader whose task is cancelled while it waits for a chunk ends the transfer", .timeLimit(.minutes(1)))
    func cancelledWhileWaiting() async throws {
        try await withTestServer { server in
            let transport = URLSessionTransport()
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: transport)
            let started = Locked(false)
            let reader = Task {
                // "[0", then one more element a second: the reader soon waits for the next chunk.
                let bytes = try await client.bytes(for: Request<Data>(path: "/trickle?chunks=1000&ms=1000"))
                for try await _ in bytes { started.withLock { $0 = true } }
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline, !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(200))
            reader.cancel()
            _ = await reader.result
            let ended = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < ended, transport.inFlightTaskCount > 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(transport.inFlightTaskCount == 0, "the transfer went on after its reader gave up")
        }
    }
}
