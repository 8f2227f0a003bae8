import Foundation
import Hummingbird

/// Slow routes for timeout and cancellation tests: `/slow`, `/slow-body`, `/trickle` and `/never`.
///
/// Every wait ends early when the server stops, so ``TestServer/stop()`` never hangs on them.
enum TimingRoutes {
    /// The longest wait any route accepts (10 minutes: far past any test's hang guard, so a
    /// client that waited for the route instead of its own deadline fails the guard).
    static let maxWait = 600_000

    /// Adds the timing routes to `router`.
    static func add(to router: TestServerRouter, state: TestServerState) {
        // GET /slow?ms=N: waits N ms, then 200 {"ok": true}.
        router.get("/slow") { request, _ in
            try await state.pause(milliseconds: min(request.queryInt("ms", default: 1000), maxWait))
            return try Reply.json(["ok": true])
        }

        // GET /slow-body?ms=N: the head and a first chunk at once, the rest N ms later.
        router.get("/slow-body") { request, _ in
            let delay = min(request.queryInt("ms", default: 1000), maxWait)
            let first = ByteBuffer(string: #"{"ok": true, "#)
            let rest = ByteBuffer(string: #""delayed_ms": \#(delay)}"#)
            let body = ResponseBody(contentLength: first.readableBytes + rest.readableBytes) { writer in
                try await writer.write(first)
                try await state.pause(milliseconds: delay)
                try await writer.write(rest)
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
        }

        // GET /trickle?chunks=N&ms=M: a JSON array of N numbers, one element every M ms
        // (chunked encoding).
        router.get("/trickle") { request, _ in
            let chunks = min(max(request.queryInt("chunks", default: 5), 1), 1000)
            let delay = min(request.queryInt("ms", default: 100), maxWait)
            let body = ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "[0"))
                for index in 1..<chunks {
                    try await state.pause(milliseconds: delay)
                    try await writer.write(ByteBuffer(string: ",\(index)"))
                }
                try await writer.write(ByteBuffer(string: "]"))
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
        }

        // GET /never: never sends a response head. The wait (up to 10 minutes) is cancelled when
        // the client closes the connection or the server stops.
        router.get("/never") { request, _ in
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await state.pause(milliseconds: maxWait)
            }
            return try Reply.error(.gatewayTimeout, code: "never", message: "gave up after 10 minutes")
        }
    }
}
