import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// Framing and connection fields belong to the transport: a request that carries one is refused
/// before anything is sent, on both transports (a caller-set `Content-Length` could smuggle a
/// second request inside the body).
@Suite("Framing and hop-by-hop headers are the transport's")
struct FramingHeaderTests {
    static let fields: [(String, String)] = [
        ("Content-Length", "0"), ("Transfer-Encoding", "chunked"), ("Connection", "close"), ("Keep-Alive", "timeout=5"),
        ("TE", "trailers"), ("Trailer", "X-Checksum"), ("Upgrade", "websocket"), ("Host", "evil.example"),
        ("Proxy-Authorization", "Basic eDp5"), ("Proxy-Connection", "keep-alive"),
    ]

    @Test("each framing field is refused with an error naming it; nothing reaches the server", arguments: TransportKind.allCases)
    func refused(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let smuggled = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            for (name, value) in Self.fields {
                var headers = RequestHeaders()
                headers[HTTPField.Name(name)!] = value
                await #expect {
                    try await client.send(Request<Echo>(method: .post, path: "/echo", headers: headers, body: .data(Data(smuggled.utf8), contentType: "text/plain")))
                } throws: { error in
                    guard let apiError = error as? APIError, apiError.kind == .encodingFailed, let underlying = apiError.underlyingError, let refused = underlying as? InvalidHeaderError else { return false }
                    return refused.name.lowercased() == name.lowercased() && "\(error)".contains(name)
                }
            }
            #expect(server.requestCount == 0)
        }
    }

    @Test("a framing field in the configuration's default headers is refused too", arguments: TransportKind.allCases)
    func inDefaults(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.defaultHeaders[.contentLength] = "3" }
            await #expect(throws: APIError.self) { try await client.send(Request<Echo>(path: "/echo")) }
            #expect(server.requestCount == 0)
        }
    }

    @Test("the transports frame the body themselves: the server reads exactly the body sent", arguments: TransportKind.allCases)
    func framedByTransport(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let echo = try await client.send(Request<Echo>(method: .post, path: "/echo", body: .data(Data("hello".utf8), contentType: "text/plain")))
            #expect(echo.body == "hello")
            #expect(echo.headers["content-length"] == "5")
            #expect(server.requestCount == 1)
        }
    }
}
