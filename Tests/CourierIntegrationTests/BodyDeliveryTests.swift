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
            // The server sends the head and a first chunk, then waits 3 s before the rest.
            let (head, body, _) = try await client.stream(Request<Data>(path: "/slow-body", query: [URLQueryItem(name: "ms", value: "3000")]))
            let headTime = start.duration(to: clock.now)
            #expect(head.status == .ok)
            #expect(headTime < .milliseconds(2500), "the head waited for the body: \(headTime)")
            let text = try await String(collecting: try #require(body), upTo: 1024)
            #expect(text.contains("delayed_ms"))
        }
    }
}
