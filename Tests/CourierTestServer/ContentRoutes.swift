import Foundation
import Hummingbird

/// Routes with a particular encoding or media type: `/gzip`, `/events`, and
/// `/events/endless-line?kb=` (an event stream whose one `data:` line never ends: `kb` KiB of
/// `a` in 16 KiB chunks, then the stream stays open until the client leaves).
enum ContentRoutes {
    /// Adds the content routes to `router`.
    static func add(to router: TestServerRouter, state: TestServerState) {
        // GET /gzip?coding=NAME: {"compressed": true, "items": [50 items]} with Content-Encoding:
        // gzip (or NAME as written, e.g. `GZIP`: coding names are case-insensitive).
        router.get("/gzip") { request, _ in
            let items = (1...50).map { GzipItem(id: $0, name: "Item \($0)") }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let json = try encoder.encode(GzipDocument(compressed: true, items: items))
            return Reply.raw(Gzip.compress(Array(json)), contentType: "application/json", headers: [.contentEncoding: request.queryValue("coding") ?? "gzip"])
        }

        // GET /events: three server-sent events, 10 ms apart, then the stream closes.
        router.get("/events") { _, _ in
            let body = ResponseBody { writer in
                for event in sampleEvents {
                    try await writer.write(ByteBuffer(string: event))
                    try await state.pause(milliseconds: 10)
                }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: body
            )
        }
        addEndlessLine(to: router, state: state)
    }

    /// Adds `/events/endless-line`.
    static func addEndlessLine(to router: TestServerRouter, state: TestServerState) {
        router.get("/events/endless-line") { request, context in
            let bytes = request.queryInt("kb", default: 2048) * 1024
            let channel = context.channel
            let body = ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "id: 1\ndata: "))
                try await StreamingRoutes.writeA(count: bytes, to: &writer, channel: channel, state: state)
                while !Task.isCancelled { try await state.pause(milliseconds: 50) }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: body)
        }
    }

    /// The three events `/events` sends, exactly as written on the wire.
    static let sampleEvents = [
        "id: 1\nevent: greeting\ndata: hello\n\n",
        "id: 2\nevent: update\ndata: {\"count\": 2}\n\n",
        "id: 3\nevent: goodbye\ndata: bye\n\n",
    ]
}

/// The JSON document `/gzip` compresses.
struct GzipDocument: Encodable {
    /// Always `true`.
    let compressed: Bool
    /// 50 items.
    let items: [GzipItem]
}

/// One item of ``GzipDocument``.
struct GzipItem: Encodable {
    /// 1...50.
    let id: Int
    /// `"Item <id>"`.
    let name: String
}
