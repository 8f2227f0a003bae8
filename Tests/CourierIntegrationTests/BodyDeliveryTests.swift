import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Bodies of every size arrive whole through `send`, and `stream(_:)` hands the head over before
/// the body has arrived — whether a transport delivers a collected body in one piece or streams it.
@Suite("Response bodies delivered whole or streamed over real transports")
struct BodyDeliveryTests {
    /// Sizes around the transports' whole-body limit (256 KiB: a body the client collects anyway
    /// is read whole by the transport up to that size) and the server's 16 KiB chunks.
    static let sizes = [0, 1, 16_384, 262_144, 262_145, 700_000]

    @Test("a body with Content-Length arrives byte for byte", arguments: TransportKind.allCases, sizes)
    func declaredLength(_ kind: TransportKind, size: Int) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let data = try await kind.client(for: server).send(Request<Data>(path: "/bytes/\(size)"))
            #expect(data.count == size)
            #expect(data.allSatisfy { $0 == UInt8(ascii: "a") })
        }
    }

    @Test("a chunked body arrives byte for byte", arguments: TransportKind.allCases, sizes)
    func chunked(_ kind: TransportKind, size: Int) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let data = try await kind.client(for: server).send(Request<Data>(path: "/stream-bytes/\(size)"))
            #expect(data.count == size)
            #expect(data.allSatisfy { $0 == UInt8(ascii: "a") })
        }
    }

    /// Records whether each response body left the transport in memory (`.multiple`) or as a
    /// single-pass stream.
    private struct RecordsBodyShape: Middleware {
        let shapes: Locked<[IterationBehavior?]>

        func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                       next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
            let (head, responseBody) = try await next(request, body, context)
            shapes.withLock { $0.append(responseBody?.iterationBehavior) }
            return (head, responseBody)
        }
    }

    @Test("a body the client collects, up to 256 KiB, is read whole by the transport; a larger one, one under an idle timeout and a streamed request's are handed over unread",
          arguments: TransportKind.allCases)
    func wholeOrStreamed(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let shapes = Locked<[IterationBehavior?]>([])
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport(),
                                   middleware: [RecordsBodyShape(shapes: shapes)])
            for size in [1, 262_144, 262_145] {
                #expect(try await client.send(Request<Data>(path: "/bytes/\(size)")).count == size)
            }
            var idle = Request<Data>(path: "/bytes/100")
            idle.options.idleTimeout = .seconds(30)
            #expect(try await client.send(idle).count == 100)
            let streamed = try await client.stream(for: Request<Data>(path: "/bytes/100"))
            #expect(try await Data(collecting: try #require(streamed.body), upTo: 1000).count == 100)
            #expect(shapes.withLock { $0 } == [.multiple, .multiple, .single, .single, .single])
        }
    }

    @Test("a HEAD request gets the head and no body", arguments: TransportKind.allCases)
    func head(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let response = try await kind.client(for: server).response(for: Request<Data>(method: .head, path: "/bytes/5000"))
            #expect(response.response.status == .ok)
            #expect(response.value.isEmpty)
        }
    }

    @Test("stream(_:) returns the head while the body is still on its way", arguments: TransportKind.allCases)
    func streamHeadFirst(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let clock = ContinuousClock()
            let start = clock.now
            // The server sends the head and a first chunk, then waits 10 minutes before the rest
            // (the wait ends when the server stops). A transport that held the head back until the
            // body ended would take the whole 10 minutes, far past the hang guard (a loaded CI
            // machine has stalled a test for 20 s).
            let streamed = try await client.stream(for: Request<Data>(path: "/slow-body", query: [URLQueryItem(name: "ms", value: "600000")]))
            let (head, body) = (streamed.response, streamed.body)
            let headTime = start.duration(to: clock.now)
            #expect(head.status == .ok)
            #expect(headTime < .seconds(90), "the head waited for the body: \(headTime)")
            var iterator = try #require(body).makeAsyncIterator()
            let first = try #require(try await iterator.next())
            #expect(String(decoding: first, as: UTF8.self).hasPrefix("{\"ok\": true"))
        }
    }
}
