import Foundation
import Hummingbird
import NIOCore

/// Body-size and streaming routes: `/bytes/{n}`, `/stream-bytes/{n}` and `/infinite`.
///
/// The bodies are written in 16 KiB chunks, each only once the connection has taken the one
/// before. Without that, NIO accepts writes much faster than a socket drains them: a 1 GB body
/// would be queued at once, and neither the client going away nor ``TestServer/stop()`` could
/// cut it short until the queue drained.
enum StreamingRoutes {
    /// The size of each chunk the streaming routes write (16 KiB).
    static let chunkSize = 16 * 1024
    /// The largest `n` `/bytes` and `/stream-bytes` accept (1 GiB).
    static let maxBytes = 1 << 30

    /// Adds the streaming routes to `router`.
    static func add(to router: TestServerRouter, state: TestServerState) {
        // GET /bytes/{n}: exactly n bytes of "a", with Content-Length.
        router.get("/bytes/{n}") { _, context in
            guard let n = context.parameters.get("n", as: Int.self), (0...maxBytes).contains(n) else {
                return try Reply.error(.badRequest, code: "bad_request", message: "n must be 0...\(maxBytes)")
            }
            let channel = context.channel
            let body = ResponseBody(contentLength: n) { writer in
                try await writeA(count: n, to: &writer, channel: channel, state: state)
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }

        // GET /stream-bytes/{n}: n bytes of "a" in 16 KiB chunks, chunked encoding.
        router.get("/stream-bytes/{n}") { _, context in
            guard let n = context.parameters.get("n", as: Int.self), (0...maxBytes).contains(n) else {
                return try Reply.error(.badRequest, code: "bad_request", message: "n must be 0...\(maxBytes)")
            }
            let channel = context.channel
            let body = ResponseBody { writer in
                try await writeA(count: n, to: &writer, channel: channel, state: state)
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }

        // GET /infinite: 16 KiB chunks until the client goes away or the server stops (the
        // connection is then aborted, not finished: an endless body has no end).
        router.get("/infinite") { _, context in
            let channel = context.channel
            let body = ResponseBody { writer in
                let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: chunkSize)
                while true {
                    try await write(chunk, to: &writer, channel: channel, state: state)
                }
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body)
        }
    }

    /// Writes `count` bytes of `"a"` in chunks of ``chunkSize``.
    static func writeA(
        count: Int,
        to writer: inout any ResponseBodyWriter,
        channel: any Channel,
        state: TestServerState
    ) async throws {
        let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: chunkSize)
        var remaining = count
        while remaining > 0 {
            let size = min(remaining, chunkSize)
            try await write(chunk.getSlice(at: 0, length: size)!, to: &writer, channel: channel, state: state)
            remaining -= size
        }
    }

    /// Writes `buffer`, then waits until the connection has taken it and can take more.
    ///
    /// The event-loop round trip makes sure the chunk has left the writer's queue (the event
    /// loop runs tasks in order); `isWritable` then says whether the socket is keeping up.
    /// Throws `CancellationError` when the client has gone away, the server is stopping or the
    /// task is cancelled; the connection is then closed without finishing the body.
    static func write(
        _ buffer: ByteBuffer,
        to writer: inout any ResponseBodyWriter,
        channel: any Channel,
        state: TestServerState
    ) async throws {
        guard channel.isActive, !state.isStopping else { throw CancellationError() }
        try await writer.write(buffer)
        try await channel.eventLoop.submit {}.get()
        while !channel.isWritable {
            guard channel.isActive, !state.isStopping else { throw CancellationError() }
            try await Task.sleep(for: .microseconds(200))
        }
    }
}
