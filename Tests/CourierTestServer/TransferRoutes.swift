import Foundation
import Hummingbird
import NIOCore

/// Routes for large-transfer tests — back-pressure and real progress — that report what the
/// server has really received or sent, per transfer id the test picks:
///
/// - `POST|PUT /transfers/upload/{id}?stallAfter=N&checksum=1`: reads the request body, counting its bytes;
///   after `N` bytes it stops reading (so the client's writes back up) until the test calls
///   ``TestServer/releaseTransfer(_:)`` (or 30 s pass, or the server stops); answers
///   `{"bytes": n, "checksum": c}` (with `checksum=1`, FNV-1a 64 of the bytes as a decimal
///   string; else `""`: checksumming large bodies is slow in debug builds).
/// - `GET /transfers/download/{id}/{n}?status=S&cutFirst=C`: `n` bytes of `"a"` with
///   `Content-Length` and status `S` (default 200; 200...599), written in 16 KiB chunks each only
///   once the connection has taken the one before, counting what it has written
///   (``TestServer/transferSent(_:)``). With `cutFirst`, the first request for the id is cut
///   off (the connection aborted) after about `C` bytes; later ones are whole.
///
/// The counters live in one table for the process, keyed by the id, so give each test a fresh
/// one (a UUID).
enum TransferRoutes {
    /// The longest a stalled upload waits for ``TestServer/releaseTransfer(_:)`` (30 s).
    static let maxStall: Duration = .seconds(30)

    /// Adds the transfer routes to `router`.
    static func add(to router: TestServerRouter, state: TestServerState) {
        @Sendable func upload(_ request: Request, _ context: TestServerContext) async throws -> Response {
            let id = context.parameters.get("id") ?? ""
            let stallAfter = request.queryInt("stallAfter", default: Int.max)
            let checksummed = request.queryInt("checksum", default: 0) == 1
            var checksum = TransferChecksum()
            var count = 0
            var stalled = false
            for try await buffer in request.body {
                if checksummed { buffer.withUnsafeReadableBytes { checksum.add($0) } }
                count += buffer.readableBytes
                TransferLedger.update(id) { $0.received = count }
                if !stalled, count >= stallAfter {
                    stalled = true
                    TransferLedger.update(id) { $0.stalled = true }
                    let deadline = ContinuousClock.now.advanced(by: maxStall)
                    while !TransferLedger.isReleased(id), !state.isStopping, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
            return try Reply.json(["bytes": "\(count)", "checksum": checksummed ? "\(checksum.value)" : ""])
        }
        router.post("/transfers/upload/{id}", use: upload)
        router.put("/transfers/upload/{id}", use: upload)

        router.get("/transfers/download/{id}/{n}") { request, context in
            let id = context.parameters.get("id") ?? ""
            let status = request.queryInt("status", default: 200)
            var attempt = 0
            TransferLedger.update(id) { entry in
                entry.requests += 1
                attempt = entry.requests
            }
            let cutAt = attempt == 1 ? request.queryInt("cutFirst", default: Int.max) : Int.max
            guard let n = context.parameters.get("n", as: Int.self), (0...StreamingRoutes.maxBytes).contains(n) else {
                return try Reply.error(.badRequest, code: "bad_request", message: "n must be 0...\(StreamingRoutes.maxBytes)")
            }
            let channel = context.channel
            let body = ResponseBody(contentLength: n) { writer in
                let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: StreamingRoutes.chunkSize)
                var sent = 0
                while sent < n {
                    if sent >= cutAt { throw CancellationError() }   // aborts the connection mid-body
                    let size = min(n - sent, StreamingRoutes.chunkSize)
                    try await StreamingRoutes.write(chunk.getSlice(at: 0, length: size)!, to: &writer, channel: channel, state: state)
                    sent += size
                    TransferLedger.update(id) { $0.sent = sent }
                }
                try await writer.finish(nil)
            }
            return Response(status: .init(code: (200...599).contains(status) ? status : 200), headers: [.contentType: "application/octet-stream"], body: body)
        }
    }
}

/// FNV-1a 64 over the bytes of a transfer, to check a large body arrived intact.
public struct TransferChecksum: Sendable {
    /// The checksum of the bytes added so far.
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// A checksum of nothing yet.
    public init() {}

    /// Adds `bytes`.
    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        value = hash
    }
}

/// What the transfer routes have seen, per transfer id.
enum TransferLedger {
    struct Entry: Sendable {
        var received = 0
        var sent = 0
        var stalled = false
        var released = false
        /// Requests the download route answered for the id.
        var requests = 0
    }

    private static let entries = Locked<[String: Entry]>([:])

    static func update(_ id: String, _ change: (inout Entry) -> Void) {
        entries.withLock { change(&$0[id, default: Entry()]) }
    }

    static func entry(_ id: String) -> Entry { entries.withLock { $0[id] ?? Entry() } }

    static func isReleased(_ id: String) -> Bool { entry(id).released }
}

extension TestServer {
    /// The request-body bytes `/transfers/upload/{id}` has read so far.
    public func transferReceived(_ id: String) -> Int { TransferLedger.entry(id).received }

    /// Whether `/transfers/upload/{id}` has stopped reading (its `stallAfter` was reached).
    public func transferStalled(_ id: String) -> Bool { TransferLedger.entry(id).stalled }

    /// Lets a stalled `/transfers/upload/{id}` read the rest of its body.
    public func releaseTransfer(_ id: String) { TransferLedger.update(id) { $0.released = true } }

    /// The response-body bytes `/transfers/download/{id}/{n}` has handed to the connection so far.
    public func transferSent(_ id: String) -> Int { TransferLedger.entry(id).sent }
}
