import Courier
import CourierTestServer
import CourierURLSession
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Files and multipart forms with files go up from disk on both transports, whatever their
/// size: a transport that collects at most 64 KiB in memory sends a 3 MiB file.
@Suite("File uploads from disk")
struct FileUploadTests {
    static let size = 3 * 1024 * 1024

    @Test("a file larger than the in-memory limit is uploaded whole", arguments: TransportKind.allCases)
    func fileBody(_ kind: TransportKind) async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.bin")
        let checksum = try await Transfers.writePayload(count: Self.size, to: file)
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: Transfers.transport(kind))
            let receipt = try await client.send(Request<TransferReceipt>(
                method: .put, path: "/transfers/upload/\(UUID().uuidString)?checksum=1", body: .file(file, contentType: "application/octet-stream")))
            #expect(receipt.bytes == "\(Self.size)")
            #expect(receipt.checksum == "\(checksum)")
        }
    }

    #if os(Linux)
    @Test("a file whose size the system reports as 0 but that has content (/proc) is uploaded whole, as a body of unknown length",
          arguments: TransportKind.allCases)
    func fileWithoutAReportedSize(_ kind: TransportKind) async throws {
        let file = URL(fileURLWithPath: "/proc/version")
        let content = try Data(contentsOf: file)
        try #require(!content.isEmpty)
        try #require((try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue == 0)
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: Transfers.transport(kind))
            let receipt = try await client.send(Request<TransferReceipt>(
                method: .put, path: "/transfers/upload/\(UUID().uuidString)", body: .file(file, contentType: "text/plain")))
            #expect(receipt.bytes == "\(content.count)")
        }
    }
    #endif

    @Test("a multipart form with a large file is uploaded whole; its temporary file is removed", arguments: TransportKind.allCases)
    func multipartWithFile(_ kind: TransportKind) async throws {
        let dir = try Transfers.makeDirectory()
        let spool = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir); try? FileManager.default.removeItem(at: spool) }
        let file = dir.appendingPathComponent("video.bin")
        try await Transfers.writePayload(count: Self.size, to: file)
        var form = MultipartForm(boundary: "courier-transfer")
        form.append("Ada", name: "name")
        try form.appendFile(at: file, name: "video", contentType: "application/octet-stream")
        let expected = try await Data(collecting: HTTPBody.multipartForTest(form), upTo: .max)
        var checksum = TransferChecksum()
        expected.withUnsafeBytes { checksum.add($0) }
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                   transport: Transfers.transport(kind, temporaryDirectory: spool))
            let receipt = try await client.send(Request<TransferReceipt>(
                method: .post, path: "/transfers/upload/\(UUID().uuidString)?checksum=1", body: .multipart(form)))
            #expect(receipt.bytes == "\(expected.count)")
            #expect(receipt.checksum == "\(checksum.value)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
    }

    @Test("a cancelled multipart upload removes its temporary file")
    func cancelledMultipart() async throws {
        let dir = try Transfers.makeDirectory()
        let spool = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir); try? FileManager.default.removeItem(at: spool) }
        let file = dir.appendingPathComponent("video.bin")
        try await Transfers.writePayload(count: 16 * 1024 * 1024, to: file, checksummed: false)
        var form = MultipartForm()
        try form.appendFile(at: file, name: "video")
        let sent = form
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                   transport: Transfers.transport(.urlSession, temporaryDirectory: spool))
            let id = UUID().uuidString
            let upload = Task {
                try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/\(id)?stallAfter=65536", body: .multipart(sent)))
            }
            #expect(try await Transfers.eventually { server.transferStalled(id) })
            #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).count == 1)
            upload.cancel()
            _ = await upload.result
            let removed = try await Transfers.eventually { (try? FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty) == true }
            #expect(removed)
            server.releaseTransfer(id)
        }
    }

    @Test("a failed multipart upload removes its temporary file")
    func failedMultipart() async throws {
        let dir = try Transfers.makeDirectory()
        let spool = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir); try? FileManager.default.removeItem(at: spool) }
        let file = dir.appendingPathComponent("video.bin")
        try await Transfers.writePayload(count: 256 * 1024, to: file)
        var form = MultipartForm()
        try form.appendFile(at: file, name: "video")
        // A port nothing listens on any more: the connection is refused.
        let stopped = try await TestServer.start()
        let port = stopped.port
        await stopped.stop()
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port)")!),
                               transport: Transfers.transport(.urlSession, temporaryDirectory: spool))
        await #expect(throws: APIError.self) {
            try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/x", body: .multipart(form)))
        }
        let removed = try await Transfers.eventually { (try? FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty) == true }
        #expect(removed)
    }

    @Test("a stream of unknown length larger than the in-memory limit is sent whole, through a temporary file that is removed", arguments: TransportKind.allCases)
    func largeStream(_ kind: TransportKind) async throws {
        let spool = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: spool) }
        let chunk = Data((0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let chunks = 48                                             // 3 MiB against a 64 KiB limit
        var checksum = TransferChecksum()
        for _ in 0..<chunks { chunk.withUnsafeBytes { checksum.add($0) } }
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                   transport: Transfers.transport(kind, temporaryDirectory: spool))
            let stream = AsyncStream<Data> { continuation in
                for _ in 0..<chunks { continuation.yield(chunk) }
                continuation.finish()
            }
            let body = HTTPBody(stream.map { ArraySlice($0) }, length: .unknown, iterationBehavior: .single)
            let receipt = try await client.send(Request<TransferReceipt>(
                method: .post, path: "/transfers/upload/\(UUID().uuidString)?checksum=1", body: .stream(body, contentType: "application/octet-stream")))
            #expect(receipt.bytes == "\(chunks * chunk.count)")
            #expect(receipt.checksum == "\(checksum.value)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
    }

    @Test("a stream that yields more or fewer bytes than its declared length fails, over both transports and both upload paths",
          arguments: TransportKind.allCases, [(declared: 16, actual: 64), (16, 8), (96 * 1024, 160 * 1024), (96 * 1024, 80 * 1024)])
    func streamOfTheWrongLength(_ kind: TransportKind, lengths: (declared: Int, actual: Int)) async throws {
        try await withTestServer { server in
            // 64 KiB in memory: the large cases go through URLSessionTransport's temporary file.
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: Transfers.transport(kind))
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                var left = lengths.actual
                while left > 0 {
                    continuation.yield(ArraySlice(repeating: 7, count: min(left, 8 * 1024)))
                    left -= 8 * 1024
                }
                continuation.finish()
            }
            let body = HTTPBody(chunks, length: .known(Int64(lengths.declared)), iterationBehavior: .single)
            let error = await #expect(throws: APIError.self) {
                try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/\(UUID().uuidString)",
                                                               body: .stream(body, contentType: "application/octet-stream")))
            }
            #expect("\(error.map { String(describing: $0) } ?? "")".contains("declared length"))
        }
    }

    @Test("a body that cannot be spooled to the temporary directory fails as a local file error, not a network one, naming the directory")
    func spoolFailure() async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("video.bin")
        try await Transfers.writePayload(count: 256 * 1024, to: file)
        var form = MultipartForm()
        try form.appendFile(at: file, name: "video")
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-missing-\(UUID().uuidString)")
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                   transport: Transfers.transport(.urlSession, temporaryDirectory: missing))
            let stream = HTTPBody(HTTPBody(Data(count: 512 * 1024)).map { $0 }, length: .unknown, iterationBehavior: .single)
            for body in [RequestBody.stream(stream, contentType: "application/octet-stream"), .multipart(form)] {
                let error = await #expect(throws: APIError.self) {
                    try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/x", body: body))
                }
                // A full or missing disk on this machine: no offline banner, no retry.
                #expect(error?.kind == .unknown, "\(String(describing: error))")
                #expect((error?.underlyingError as? TransportError)?.kind == .localFile, "\(String(describing: error))")
                #expect("\(error.map { String(describing: $0) } ?? "")".contains(missing.path), "\(String(describing: error))")
            }
        }
    }

    @Test("a large stream that fails while it is spooled is an error reading the request body, not a local file one")
    func spooledStreamFails() async throws {
        let spool = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: spool) }
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                   transport: Transfers.transport(.urlSession, temporaryDirectory: spool))
            struct ProducerFailed: Error {}
            // 256 KiB, past the 64 KiB kept in memory, then the producer fails.
            let chunks = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
                for _ in 0..<4 { continuation.yield(ArraySlice(repeating: 1, count: 64 * 1024)) }
                continuation.finish(throwing: ProducerFailed())
            }
            let body = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
            let error = await #expect(throws: APIError.self) {
                try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/x",
                                                               body: .stream(body, contentType: "application/octet-stream")))
            }
            let underlying = error?.underlyingError as? TransportError
            #expect(underlying?.kind == .invalidRequest, "\(String(describing: error))")
            #expect(underlying?.underlying is ProducerFailed, "\(String(describing: error))")
        }
        let removed = try await Transfers.eventually { (try? FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty) == true }
        #expect(removed)
    }

    @Test("a stream body that stops yielding, small or past the in-memory limit, times out at the request's deadline and leaves no temporary file", arguments: [1024, 256 * 1024])
    func stalledStreamBodyTimesOut(before stall: Int) async throws {
        let spool = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: spool) }
        // Some bytes, then nothing more and no end (a proxied upstream that stalled).
        let (chunks, producer) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        producer.yield(ArraySlice(repeating: 1, count: stall))
        try await expectTimeout(uploading: HTTPBody(chunks, length: .unknown, iterationBehavior: .single), over: .urlSession, spool: spool)
        producer.finish()
        let removed = try await Transfers.eventually { (try? FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty) == true }
        #expect(removed)
    }

    @Test("a stream body (single-pass or not) that stalls and ignores cancellation still times out at the request's deadline, and a temporary file written meanwhile is removed when it ends",
          .timeLimit(.minutes(1)), arguments: TransportKind.allCases,
          [(1024, IterationBehavior.single), (256 * 1024, .single), (1024, .multiple), (256 * 1024, .multiple)])
    func stalledBodyIgnoringCancellation(_ kind: TransportKind, stalling: (after: Int, behavior: IterationBehavior)) async throws {
        let stall = stalling.after
        let spool = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: spool) }
        let stalled = DeafStall(first: stall)
        try await expectTimeout(uploading: HTTPBody(stalled, length: .unknown, iterationBehavior: stalling.behavior), over: kind, spool: spool)
        stalled.release()
        let removed = try await Transfers.eventually { (try? FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty) == true }
        #expect(removed)
    }

    /// Uploads `body` with a 1 s timeout and expects a `timeout` error, not a hang.
    private func expectTimeout(uploading body: HTTPBody, over kind: TransportKind, spool: URL) async throws {
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(1)),
                                   transport: Transfers.transport(kind, temporaryDirectory: spool))
            let start = ContinuousClock.now
            let error = await #expect(throws: APIError.self) {
                try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/\(UUID().uuidString)",
                                                               body: .stream(body, contentType: "application/octet-stream")))
            }
            #expect(error?.kind == .timeout, "\(String(describing: error))")
            #expect(ContinuousClock.now - start < .seconds(60), "a hang guard: the body never ends")
        }
    }

    @Test("a stream whose upload fails leaves no temporary file behind")
    func failedStreamRemovesSpool() async throws {
        let spool = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: spool) }
        let stopped = try await TestServer.start()
        let port = stopped.port
        await stopped.stop()
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port)")!),
                               transport: Transfers.transport(.urlSession, temporaryDirectory: spool))
        let body = HTTPBody(Data(count: 512 * 1024))
        await #expect(throws: APIError.self) {
            try await client.send(Request<TransferReceipt>(method: .post, path: "/transfers/upload/x",
                                                           body: .stream(HTTPBody(body.map { $0 }, length: .unknown, iterationBehavior: .single),
                                                                         contentType: "application/octet-stream")))
        }
        let removed = try await Transfers.eventually { (try? FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty) == true }
        #expect(removed)
    }
}

extension HTTPBody {
    /// The bytes Courier sends for `form` (read through the client's own encoder, via a stub).
    static func multipartForTest(_ form: MultipartForm) async throws -> HTTPBody {
        let recorder = BodyRecorder()
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://stub.example")!), transport: recorder)
        _ = try? await client.send(Request<Data>(method: .post, path: "/", body: .multipart(form)))
        return HTTPBody(recorder.bytes.withLock { $0 })
    }
}

/// A transport that keeps the request body's bytes and answers 204.
private struct BodyRecorder: Transport {
    let bytes = Locked(Data())
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        if let body { let data = try await Data(collecting: body, upTo: .max); bytes.withLock { $0 = data } }
        return (HTTPResponse(status: .noContent), nil)
    }
}

/// A body that yields `first` bytes, then waits without end and without watching for cancellation (an
/// upstream reader blocked in a call it cannot interrupt), until ``release()``.
private final class DeafStall: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    private let gate = Locked<(released: Bool, waiting: CheckedContinuation<Void, Never>?)>((false, nil))
    private let first: Int

    init(first: Int) { self.first = first }

    func release() {
        gate.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.waiting = nil }
            return state.waiting
        }?.resume()
    }

    func makeAsyncIterator() -> Iterator { Iterator(owner: self) }

    struct Iterator: AsyncIteratorProtocol {
        let owner: DeafStall
        var sent = false

        mutating func next() async -> ArraySlice<UInt8>? {
            if !sent {
                sent = true
                return ArraySlice(repeating: 1, count: owner.first)
            }
            await withCheckedContinuation { continuation in
                let resumeNow = owner.gate.withLock { state -> Bool in
                    if state.released { return true }
                    state.waiting = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            return nil
        }
    }
}
