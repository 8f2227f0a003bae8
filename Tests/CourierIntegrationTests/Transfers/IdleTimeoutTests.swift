import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// `idleTimeout`: a stalled response fails after the idle limit, whatever the total timeout; a
/// slow but steady one does not.
@Suite("Idle timeout")
struct IdleTimeoutTests {
    struct Slow: Decodable, Sendable { var ok: Bool }

    private func client(_ kind: TransportKind, _ server: TestServer, idle: Duration?) -> APIClient {
        kind.client(for: server) { configuration in
            configuration.timeout = .seconds(60)
            configuration.idleTimeout = idle
        }
    }

    @Test("a body that stalls fails with a timeout naming the idle limit, long before the total timeout", arguments: TransportKind.allCases)
    func stalledBody(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let client = client(kind, server, idle: .milliseconds(300))
            let error = await #expect(throws: APIError.self) {
                try await client.send(Request<Slow>(path: "/slow-body", query: [.init(name: "ms", value: "600000")]))
            }
            #expect(error?.kind == .timeout)
            #expect("\(error.map { String(describing: $0) } ?? "")".contains("idle timeout"))
        }
    }

    @Test("a response head that never comes fails after the idle limit", arguments: TransportKind.allCases)
    func stalledHead(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let client = client(kind, server, idle: nil)
            var options = RequestOptions()
            options.idleTimeout = .milliseconds(300)
            let error = await #expect(throws: APIError.self) {
                try await client.send(Request<Slow>(path: "/never", options: options))
            }
            #expect(error?.kind == .timeout)
        }
    }

    @Test("a slow but steady body is not cut: each gap is below the idle limit", arguments: TransportKind.allCases)
    func steadyBody(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            // 80 gaps of 50 ms, 4 s in all, under a 3 s idle limit. A loaded CI machine has
            // stalled a whole test process for seconds, which no idle limit survives: up to five
            // attempts, of which one must succeed. A timer that is not reset by each chunk
            // fails all five.
            let client = client(kind, server, idle: .seconds(3))
            var failures: [String] = []
            for _ in 0..<5 {
                do {
                    let numbers = try await client.send(Request<[Int]>(path: "/trickle", query: [.init(name: "chunks", value: "80"), .init(name: "ms", value: "50")]))
                    #expect(numbers == Array(0..<80))
                    break
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.count < 5, "every steady body was cut: \(failures)")
        }
    }

    @Test("a slow but steady download is not cut, also when the transport writes the file itself", arguments: TransportKind.allCases)
    func steadyDownload(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            // 6 s in all, longer than the idle limit; each gap (100 ms) 50 times below it. A
            // loaded CI machine has stalled a whole test process for 20 s, which no idle limit
            // survives: up to five attempts, of which one must succeed. A timer that is not
            // reset by each chunk fails all five.
            let client = client(kind, server, idle: .seconds(5))
            let file = directory.appendingPathComponent("numbers.json")
            var failures: [String] = []
            for _ in 0..<5 {
                do {
                    let result = try await client.download(Request<Data>(path: "/trickle", query: [.init(name: "chunks", value: "60"), .init(name: "ms", value: "100")]),
                                                           to: file)
                    #expect(result.byteCount > 0)
                    #expect(try JSONDecoder().decode([Int].self, from: Data(contentsOf: file)) == Array(0..<60))
                    break
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.count < 5, "every steady download was cut: \(failures)")
        }
    }

    @Test("a download that stalls fails after the idle limit", arguments: TransportKind.allCases)
    func stalledDownload(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            let client = client(kind, server, idle: .milliseconds(300))
            let error = await #expect(throws: APIError.self) {
                try await client.download(Request<Data>(path: "/slow-body", query: [.init(name: "ms", value: "600000")]),
                                          to: directory.appendingPathComponent("file"))
            }
            #expect(error?.kind == .timeout)
        }
    }

    // Uploads. Against a bare socket server that stops reading after 1 MiB: Hummingbird's
    // request-body buffering would keep taking bytes while its handler waits.

    @Test("an upload the server stops reading fails after the idle limit, long before the total timeout", arguments: TransportKind.allCases)
    func stalledUpload(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("payload.bin")
        _ = try await Transfers.writePayload(count: 64 * 1024 * 1024, to: file, checksummed: false)
        let server = try await StallingUploadServer.start(stallAfter: 1024 * 1024)
        var configuration = APIConfiguration(baseURL: server.baseURL, timeout: .seconds(300))
        configuration.idleTimeout = .seconds(2)
        let client = APIClient(configuration: configuration, transport: kind.makeTransport())
        let elapsed = await ContinuousClock().measure {
            let error = await #expect(throws: APIError.self) {
                try await client.upload(Request<TransferReceipt>(method: .put, path: "/upload"), fromFile: file) { _ in }
            }
            #expect(error?.kind == .timeout, "got \(String(describing: error))")
            #expect("\(error.map { String(describing: $0) } ?? "")".contains("idle timeout"))
        }
        // A hang guard, not a timing measurement: without the watch the upload waits for the
        // 300 s deadline.
        #expect(elapsed < .seconds(120))
        await server.stop()
    }

    @Test("a stream body whose source stops yielding fails after the idle limit, also while URLSession reads it before the task",
          arguments: TransportKind.allCases, [false, true])
    func stalledStreamBody(_ kind: TransportKind, declaresLength: Bool) async throws {
        try await withTestServer { server in
            // One chunk, then nothing, never an end: a stalled upstream.
            let (chunks, source) = AsyncStream<ArraySlice<UInt8>>.makeStream()
            source.yield(ArraySlice(repeating: 7, count: 1024))
            defer { source.finish() }
            let client = kind.client(for: server) { configuration in
                configuration.timeout = .seconds(300)
                configuration.idleTimeout = .seconds(2)
            }
            // URLSession reads a declared length with `collect` and an unknown one with `spool`.
            let body = HTTPBody(chunks, length: declaresLength ? .known(64 * 1024) : .unknown, iterationBehavior: .single)
            let elapsed = await ContinuousClock().measure {
                let error = await #expect(throws: APIError.self) {
                    try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/\(UUID().uuidString)",
                                                                   body: .stream(body, contentType: "application/octet-stream")))
                }
                #expect(error?.kind == .timeout, "got \(String(describing: error))")
                #expect("\(error.map { String(describing: $0) } ?? "")".contains("idle timeout"))
            }
            // A hang guard, not a timing measurement: without the watch the request waits for
            // the 300 s deadline.
            #expect(elapsed < .seconds(120))
        }
    }

    @Test("a stream body that yields more slowly than the idle limit in all, but steadily, completes", arguments: TransportKind.allCases)
    func steadyStreamBody(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            // 8 chunks 0.4 s apart (3.2 s in all) under a 2 s limit: a watch that counted from its
            // start, not from the last chunk, would cut it. Up to five attempts, as for the
            // paused upload below: a loaded machine can stall the test process past any limit.
            var failures: [String] = []
            for _ in 0..<5 {
                let client = kind.client(for: server) { configuration in
                    configuration.timeout = .seconds(300)
                    configuration.idleTimeout = .seconds(2)
                }
                let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                    let feeding = Task {
                        for _ in 0..<8 {
                            continuation.yield(ArraySlice(repeating: 7, count: 1024))
                            try? await Task.sleep(for: .milliseconds(400))
                        }
                        continuation.finish()
                    }
                    continuation.onTermination = { _ in feeding.cancel() }
                }
                let body = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
                do {
                    let receipt = try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/\(UUID().uuidString)",
                                                                                 body: .stream(body, contentType: "application/octet-stream")))
                    #expect(receipt.bytes == "\(8 * 1024)")
                    break
                } catch {
                    failures.append("\(error)")
                }
            }
            #expect(failures.count < 5, "every steady stream body was cut: \(failures)")
        }
    }

    @Test("an upload whose server pauses for less than the idle limit completes", arguments: TransportKind.allCases)
    func pausedUpload(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("payload.bin")
        let size = 16 * 1024 * 1024
        _ = try await Transfers.writePayload(count: size, to: file, checksummed: false)
        // A pause of 0.5 s under a 10 s limit. A loaded CI machine has stalled a whole test
        // process for 20 s, which no idle limit survives: up to five attempts, of which one must
        // succeed. A watch that fires during a pause shorter than the limit fails all five.
        var failures: [String] = []
        for _ in 0..<5 {
            let server = try await StallingUploadServer.start(stallAfter: 1024 * 1024)
            var configuration = APIConfiguration(baseURL: server.baseURL, timeout: .seconds(300))
            configuration.idleTimeout = .seconds(10)
            let client = APIClient(configuration: configuration, transport: kind.makeTransport())
            let upload = Task { try await client.upload(Request<TransferReceipt>(method: .put, path: "/upload"), fromFile: file) { _ in } }
            #expect(try await Transfers.eventually { server.isStalled })
            try await Task.sleep(for: .milliseconds(500))
            server.release()
            do {
                #expect(try await upload.value.bytes == "\(size)")
                await server.stop()
                break
            } catch {
                failures.append("\(error)")
                await server.stop()
            }
        }
        #expect(failures.count < 5, "every paused upload was cut: \(failures)")
    }
}
