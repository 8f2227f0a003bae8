import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Downloads, byte streams and Server-Sent Events against the loopback server.
@Suite("Streaming over real transports")
struct StreamingIntegrationTests {
    private final class Progress: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var values: [TransferProgress] = []
        func append(_ value: TransferProgress) { lock.lock(); values.append(value); lock.unlock() }
        var all: [TransferProgress] { lock.lock(); defer { lock.unlock() }; return values }
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("download writes a 3 MB body to disk with progress and a known total", arguments: TransportKind.allCases)
    func download(_ kind: TransportKind) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { (server: TestServer) async throws in
            // A client-wide limit smaller than the file: downloads are not held in memory.
            let client = kind.client(for: server) { $0.maxResponseSize = 1024 }
            let progress = Progress()
            let file = dir.appendingPathComponent("bytes.bin")
            let n = 3 * 1024 * 1024
            let result = try await client.download(Request<Data>(path: "/bytes/\(n)"), to: file) { progress.append($0) }
            #expect(result.byteCount == Int64(n))
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.size] as? NSNumber)?.intValue == n)
            let reports = progress.all
            #expect(reports.count > 2)
            #expect(reports.last == TransferProgress(completedBytes: Int64(n), totalBytes: Int64(n)))
        }
    }

    @Test("a download answered with an error status throws it with the server's message, and leaves no file",
          arguments: TransportKind.allCases)
    func downloadErrorStatus(_ kind: TransportKind) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            await #expect {
                try await client.download(Request<Data>(path: "/status/404"), to: dir.appendingPathComponent("missing"))
            } throws: { error in
                guard let error = error as? APIError else { return false }
                return error.statusCode == 404 && error.message == "status 404"
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    @Test("a download through two redirects writes the final body", arguments: TransportKind.allCases)
    func downloadRedirected(_ kind: TransportKind) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let file = dir.appendingPathComponent("echo.json")
            let result = try await client.download(Request<Data>(path: "/redirect/2"), to: file)
            #expect(result.response.status.code == 200)
            let echo = try JSONDecoder().decode(Echo.self, from: Data(contentsOf: file))
            #expect(echo.path == "/redirect/0")
            #expect(result.byteCount == Int64(try Data(contentsOf: file).count))
        }
    }

    @Test("download of a chunked body reports bytes without a total", arguments: TransportKind.allCases)
    func chunkedDownload(_ kind: TransportKind) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let progress = Progress()
            let result = try await client.download(Request<Data>(path: "/stream-bytes/100000"), to: dir.appendingPathComponent("s")) {
                progress.append($0)
            }
            #expect(result.byteCount == 100_000)
            #expect(progress.all.last?.completedBytes == 100_000)
        }
    }

    @Test("cancelling a download of an endless body removes the partial file", arguments: TransportKind.allCases)
    func cancelledDownload(_ kind: TransportKind) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let (started, continuation) = AsyncStream<Void>.makeStream()
            let task = Task {
                try await client.download(Request<Data>(path: "/infinite"), to: dir.appendingPathComponent("endless")) { p in
                    if p.completedBytes > 100_000 { continuation.yield() }
                }
            }
            for await _ in started { break }
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    @Test("a request's own size limit stops a download and removes the file", arguments: TransportKind.allCases)
    func limitedDownload(_ kind: TransportKind) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            await #expect {
                try await client.download(Request<Data>(path: "/stream-bytes/200000", options: RequestOptions(maxResponseSize: 50_000)),
                                          to: dir.appendingPathComponent("big"))
            } throws: { error in
                if (error as? APIError)?.kind == .resourceTooLarge { return true }
                return false
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    @Test("bytes(for:) streams an endless body until the caller stops", arguments: TransportKind.allCases)
    func endlessBytes(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let stream = try await client.bytes(for: Request<Data>(path: "/infinite"))
            var total = 0
            for try await chunk in stream {
                total += chunk.count
                if total >= 1_000_000 { break }
            }
            #expect(total >= 1_000_000)
            // The connection was released: the same client still works.
            let small = try await client.bytes(for: Request<Data>(path: "/bytes/10")).collect(upTo: 100)
            #expect(small == Data(repeating: UInt8(ascii: "a"), count: 10))
        }
    }

    @Test("events(for:) reads the server's three events", arguments: TransportKind.allCases)
    func events(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            var received: [ServerSentEvent] = []
            for try await event in try await client.events(for: Request<Void>(path: "/events")) { received.append(event) }
            #expect(received == [
                ServerSentEvent(id: "1", event: "greeting", data: "hello"),
                ServerSentEvent(id: "2", event: "update", data: #"{"count": 2}"#),
                ServerSentEvent(id: "3", event: "goodbye", data: "bye"),
            ])
        }
    }

    @Test("events(for:) reconnects when the stream closes", arguments: TransportKind.allCases)
    func reconnects(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            var ids: [String?] = []
            let events = try await client.events(for: Request<Void>(path: "/events"), reconnection: .automatic(defaultDelay: .milliseconds(20)))
            for try await event in events {
                ids.append(event.id)
                if ids.count == 5 { break }
            }
            #expect(ids == ["1", "2", "3", "1", "2"])
            #expect(server.requestCount == 2)
        }
    }

    @Test("upload streams a file with progress", arguments: TransportKind.allCases)
    func upload(_ kind: TransportKind) async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("up.txt")
        try Data(String(repeating: "x", count: 100_000).utf8).write(to: file)
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let progress = Progress()
            let echo = try await client.upload(Request<Echo>(method: .post, path: "/echo"), fromFile: file, contentType: "text/plain") {
                progress.append($0)
            }
            #expect(echo.body.count == 100_000)
            #expect(progress.all.last == TransferProgress(completedBytes: 100_000, totalBytes: 100_000))
        }
    }
}
