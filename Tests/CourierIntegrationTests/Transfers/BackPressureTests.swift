import Courier
import CourierTestServer
import Foundation
import OpenAPIRuntime
import Testing

/// Bodies move only as fast as the slower side: a reader that stops reading stops the server,
/// and a server that stops reading stops the client reading its source. Checked at the counters
/// of the test server (what it has written or read) and of the source, not with memory figures
/// (courier-bench measures those in a child process per case).
@Suite("Back-pressure")
struct BackPressureTests {
    /// Bytes the kernel's socket buffers, NIO and the transport may hold between a stalled
    /// reader and the server: far below the bodies used here.
    static let slack = 24 * 1024 * 1024

    /// The transports that can pause a response while its reader lags: FoundationNetworking
    /// cannot (see `ReceiveFlow`), so on Linux only AsyncHTTPClient is checked.
    static var pausingTransports: [TransportKind] {
        #if canImport(FoundationNetworking)
        return [.asyncHTTPClient]
        #else
        return TransportKind.allCases
        #endif
    }

    @Test("a reader that stops reading stops the server's writes", arguments: pausingTransports)
    func stalledReader(_ kind: TransportKind) async throws {
        let size = 128 * 1024 * 1024
        try await withTestServer { server in
            let client = kind.client(for: server)
            let id = UUID().uuidString
            let bytes = try await client.bytes(for: Request<Data>(path: "/transfers/download/\(id)/\(size)"))
            var iterator = bytes.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first?.isEmpty == false)
            let sent = try await Transfers.settled { server.transferSent(id) }
            #expect(sent < Self.slack, "the server wrote \(sent) of \(size) bytes to a reader that read one chunk")
            // Reading on resumes the transfer.
            var more = 0
            while more < 8 * 1024 * 1024, let chunk = try await iterator.next() { more += chunk.count }
            #expect(more >= 8 * 1024 * 1024)
        }
    }

    @Test("a reader that breaks out of its loop ends the transfer, while the stream itself is still referenced", arguments: TransportKind.allCases)
    func brokenOffReader(_ kind: TransportKind) async throws {
        let size = 512 * 1024 * 1024
        try await withTestServer { server in
            let client = kind.client(for: server)
            let id = UUID().uuidString
            let bytes = try await client.bytes(for: Request<Data>(path: "/transfers/download/\(id)/\(size)"))
            for try await chunk in bytes where !chunk.isEmpty { break }
            let sent = try await Transfers.settled { server.transferSent(id) }
            #expect(sent < size / 2, "the server wrote \(sent) of \(size) bytes after the reader broke off")
            withExtendedLifetime(bytes) {}   // the stream is referenced until here
        }
    }

    @Test("a download of a streamed body is written whole", arguments: TransportKind.allCases)
    func download(_ kind: TransportKind) async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let size = 16 * 1024 * 1024
        try await withTestServer { server in
            let client = kind.client(for: server)
            let id = UUID().uuidString
            let result = try await client.download(Request<Data>(path: "/transfers/download/\(id)/\(size)"), to: dir.appendingPathComponent("d"))
            #expect(result.byteCount == Int64(size))
        }
    }

    /// Against a bare socket server that stops reading (Hummingbird's request-body buffering
    /// sometimes takes a whole 48 MiB body while its handler has stopped reading, so a stalled
    /// handler there does not stall the socket). AsyncHTTPClient only: `URLSessionTransport`
    /// sends a `.stream` larger than its in-memory limit through a temporary file, which it
    /// writes whole first.
    ///
    /// AsyncHTTPClient stops asking for chunks once its channel is not writable, but it learns
    /// that on the event loop while the body is read on another thread (its issue 784): before
    /// `ByteBufferSequence` waited for the event loops every MiB, 6–7 MiB were read ahead of the
    /// server when this test ran alone, and up to 26 MiB in a loaded full test run. Now what is
    /// read ahead is the kernel's socket buffers — the client's send buffer, at most
    /// `tcp_wmem`'s maximum, and the server's 256 KiB receive buffer (512 KiB as the kernel
    /// counts it) — plus at most 1 MiB and a chunk in the process: the bound is the send
    /// buffer's maximum + 1.5 MiB.
    @Test("an upload reads its source no faster than the server takes the bytes")
    func uploadSourceFollowsTheServer() async throws {
        let size = 128 * 1024 * 1024
        let server = try await StallingUploadServer.start(stallAfter: 1024 * 1024)
        let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: TransportKind.asyncHTTPClient.makeTransport())
        let source = CountingSource(size: size)
        let upload = Task {
            try await client.send(Request<TransferReceipt>(method: .post, path: "/upload",
                                                           body: .stream(source.body(), contentType: "application/octet-stream")))
        }
        #expect(try await Transfers.eventually { server.isStalled })
        let pulled = try await Transfers.settled { source.pulled }
        let bound = Self.largestSendBuffer() + 3 * 512 * 1024
        #expect(pulled - server.received < bound, "read \(pulled) bytes from the source while the server had read \(server.received) (bound: \(bound))")
        #expect(pulled < size, "the whole source was read while the server had stopped reading")
        server.release()
        let receipt = try await upload.value
        #expect(receipt.bytes == "\(size)")
        await server.stop()
    }
}

extension BackPressureTests {
    /// The upload progress AsyncHTTPClientTransport reports counts what its connection took:
    /// against a server that stops reading its socket, it stays within the same bound as the
    /// source's reads above (the send buffer's maximum + 1.5 MiB ahead of the server), and
    /// reaches the whole file once the server reads on. (URLSession's `didSendBodyData` is
    /// checked in `UploadProgressTests`.)
    @Test("AsyncHTTPClient's upload progress stays within the socket buffers of what the server read")
    func uploadProgressFollowsAStalledServer() async throws {
        let size = 64 * 1024 * 1024
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.bin")
        _ = try await Transfers.writePayload(count: size, to: file, checksummed: false)
        let server = try await StallingUploadServer.start(stallAfter: 1024 * 1024)
        let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: TransportKind.asyncHTTPClient.makeTransport())
        let log = ProgressLog()
        let upload = Task {
            try await client.upload(Request<TransferReceipt>(method: .put, path: "/upload"), fromFile: file) { log.append($0) }
        }
        #expect(try await Transfers.eventually { server.isStalled })
        let reported = try await Transfers.settled { log.last?.completedBytes ?? 0 }
        let bound = Int64(Self.largestSendBuffer() + 3 * 512 * 1024)
        #expect(reported - Int64(server.received) < bound, "reported \(reported) bytes sent while the server had read \(server.received) (bound: \(bound))")
        server.release()
        let receipt = try await upload.value
        #expect(receipt.bytes == "\(size)")
        #expect(log.last == TransferProgress(completedBytes: Int64(size), totalBytes: Int64(size)))
        await server.stop()
    }

    /// The most a TCP send buffer may grow to: the third figure of Linux's
    /// `/proc/sys/net/ipv4/tcp_wmem` (4 MiB when it cannot be read).
    static func largestSendBuffer() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8)) ?? ""
        let figures = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        return figures.count == 3 ? figures[2] : 4 * 1024 * 1024
    }
}

/// A generated body of `size` bytes that counts what has been read from it.
final class CountingSource: Sendable {
    let size: Int
    private let count = Locked(0)

    init(size: Int) { self.size = size }

    /// The bytes read so far.
    var pulled: Int { count.withLock { $0 } }

    func body() -> HTTPBody {
        let chunk = ArraySlice([UInt8](repeating: UInt8(ascii: "u"), count: 64 * 1024))
        let size = self.size
        let sequence = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { [count] in
            let sent = count.withLock { sent -> Int in
                let n = min(chunk.count, size - sent)
                sent += n
                return n
            }
            return sent > 0 ? chunk.prefix(sent) : nil
        }
        return HTTPBody(sequence, length: .known(Int64(size)), iterationBehavior: .single)
    }
}
