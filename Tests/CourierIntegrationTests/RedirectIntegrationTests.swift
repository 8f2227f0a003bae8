import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Redirects are followed by Courier with the same rules on both transports.
@Suite("Redirects over real transports")
struct RedirectIntegrationTests {
    // (`Proxy-Authorization` is refused on any request now: `Proxy-*` fields belong to the
    // transport, see FramingHeaderTests.)
    private let credentials: RequestHeaders = [
        .authorization: "Bearer secret-token", .cookie: "session=abc", .init("X-Api-Key")!: "k-123",
    ]

    @Test("a chain of redirects on one origin is followed with credentials kept", arguments: TransportKind.allCases)
    func sameOrigin(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let echo = try await client.send(Request<Echo>(path: "/redirect/3", headers: credentials))
            #expect(echo.headers["authorization"] == "Bearer secret-token")
            #expect(echo.path.hasPrefix("/redirect/0") || echo.path.hasPrefix("/echo"))
        }
    }

    @Test("credentials are dropped when the redirect goes to another origin", arguments: TransportKind.allCases)
    func crossOrigin(_ kind: TransportKind) async throws {
        try await withTestServer { (origin: TestServer) async throws in
            try await withTestServer { (other: TestServer) async throws in
                let client = kind.client(for: origin)
                var options = RequestOptions()
                options.sensitiveRedirectHeaders = [.init("X-Api-Key")!]
                let target = other.url("/headers").absoluteString
                let echo = try await client.send(Request<Echo>(
                    path: "/redirect-to", query: [.init(name: "url", value: target)], headers: credentials, options: options))
                #expect(echo.headers["host"]?.hasSuffix(":\(other.port)") == true)
                #expect(echo.headers["authorization"] == nil)
                #expect(echo.headers["cookie"] == nil)
                #expect(echo.headers["proxy-authorization"] == nil)
                #expect(echo.headers["x-api-key"] == nil)
            }
        }
    }

    @Test("301, 302 and 303 after POST arrive as a GET without the body", arguments: TransportKind.allCases, [301, 302, 303])
    func seeOther(_ kind: TransportKind, status: Int) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let echo = try await client.send(Request<Echo>(
                method: .post, path: "/redirect-to", query: [.init(name: "url", value: "/headers"), .init(name: "status", value: "\(status)")],
                body: .json(["a": "b"])))
            #expect(echo.method == "GET")
            #expect(echo.body.isEmpty)
            #expect(echo.headers["content-type"] == nil)
        }
    }

    @Test("307 resends the method and body", arguments: TransportKind.allCases)
    func temporaryRedirect(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let echo = try await client.send(Request<Echo>(
                method: .post, path: "/redirect-to", query: [.init(name: "url", value: "/headers"), .init(name: "status", value: "307")],
                body: .json(["a": "b"])))
            #expect(echo.method == "POST")
            #expect(echo.body == #"{"a":"b"}"#)
        }
    }

    @Test("307 and 308 refuse to resend a body that can be read only once", arguments: TransportKind.allCases, [307, 308])
    func singlePassBodyNotResent(_ kind: TransportKind, status: Int) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let stream = AsyncStream<ArraySlice<UInt8>> { continuation in
                continuation.yield(ArraySlice(#"{"a":"b"}"#.utf8))
                continuation.finish()
            }
            let body = HTTPBody(stream, length: .known(9), iterationBehavior: .single)
            await #expect {
                try await client.send(Request<Data>(
                    method: .post, path: "/redirect-to", query: [.init(name: "url", value: "/headers"), .init(name: "status", value: "\(status)")],
                    body: .stream(body, contentType: "application/json")))
            } throws: { error in
                guard let apiError = error as? APIError, let redirect = apiError.underlyingError as? RedirectError else { return false }
                return "\(redirect)".contains("can be sent only once")
            }
        }
    }

    @Test("a redirect loop ends in an error", arguments: TransportKind.allCases)
    func loop(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            await #expect {
                try await client.send(Request<Data>(path: "/redirect-loop"))
            } throws: { error in
                guard let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError else { return false }
                return underlying is RedirectError
            }
        }
    }

    @Test("more than 10 redirects is an error", arguments: TransportKind.allCases)
    func tooMany(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/redirect/11")) }
            _ = try await client.send(Request<Data>(path: "/redirect/10"))
        }
    }
}
