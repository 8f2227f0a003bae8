import Courier
import CourierTestServer
import Foundation
import Testing

/// Bodies of every size arrive whole through `send`, and `stream(_:)` hands the head over before
/// the body has arrived — whether a transport delivers a collected body in one piece or streams it.
@Suite("Response bodies delivered whole or streamed over real transports")
struct BodyDeliveryTests {
    /// Sizes around the URLSession transport's whole-body buffer (256 KiB) and the server's
    /// 16 KiB chunks.
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
            // The server sends the head and a first chunk, then waits 30 s before the rest (the
            // wait ends when the server stops). A transport that held the head back until the body
            // ended would take the whole 30 s.
            let streamed = try await client.stream(for: Request<Data>(path: "/slow-body", query: [URLQueryItem(name: "ms", value: "30000")]))
            let (head, body) = (streamed.response, streamed.body)
            let headTime = start.duration(to: clock.now)
            #expect(head.status == .ok)
            #expect(headTime < .seconds(15), "the head waited for the body: \(headTime)")
            var iterator = try #require(body).makeAsyncIterator()
            let first = try #require(try await iterator.next())
            #expect(String(decoding: first, as: UTF8.self).hasPrefix("{\"ok\": true"))
        }
    }
}
