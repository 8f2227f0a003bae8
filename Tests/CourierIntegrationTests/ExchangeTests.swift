import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// JSON round trips, errors and encoding on the wire, against a real server on 127.0.0.1.
@Suite("Exchanges over real transports")
struct ExchangeTests {
    @Test("a JSON body goes out and a decoded value comes back", arguments: TransportKind.allCases)
    func jsonRoundTrip(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            struct NewUser: Encodable, Sendable { var name: String; var email: String }
            let created = try await client.response(for: Request<TestUser>(method: .post, path: "/users", body: .json(NewUser(name: "Ada", email: "ada@example.com"))))
            #expect(created.statusCode == 201)
            #expect(created.value == TestUser(id: 101, name: "Ada", email: "ada@example.com"))
            let fetched = try await client.send(Request<TestUser>(path: "/users/{id}", pathParameters: ["id": "7"]))
            #expect(fetched.name == "User 7")
        }
    }

    @Test("a 404 is an httpError carrying the server's message", arguments: TransportKind.allCases)
    func notFound(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            await #expect {
                try await client.send(Request<TestUser>(path: "/users/404"))
            } throws: { error in
                guard let apiError = error as? APIError, apiError.kind == .httpError, apiError.statusCode == 404, case let message = apiError.message, let request = apiError.request else { return false }
                return message == "No user with id 404" && request.url.hasSuffix("/users/404")
            }
        }
    }

    @Test("hostile path values stay inside their segment on the wire", arguments: TransportKind.allCases)
    func pathEncodingOnTheWire(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let echo = try await client.send(Request<Echo>(path: "/echo/{id}/tail", pathParameters: ["id": "../admin a/b?c#d"]))
            #expect(echo.path == "/echo/..%2Fadmin%20a%2Fb%3Fc%23d/tail")
            #expect(echo.query == nil)
        }
    }

    @Test("query names and values arrive RFC 3986 encoded, in order", arguments: TransportKind.allCases)
    func queryOnTheWire(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let request = Request<Echo>(path: "/echo", query: [
                .init(name: "q", value: "a&b=c+d e"), .init(name: "none", value: nil), .init(name: "tag", value: "x"),
                .init(name: "tag", value: "é"),
            ])
            let echo = try await client.send(request)
            #expect(echo.query == "q=a%26b%3Dc%2Bd%20e&tag=x&tag=%C3%A9")
        }
    }

    @Test("multipart uploads arrive byte for byte", arguments: TransportKind.allCases)
    func multipartOnTheWire(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            var form = MultipartForm(boundary: "courier-test")
            form.append("Ada", name: "name")
            let binary = Data((0..<256).map { UInt8($0) })
            form.append(binary, name: "file", fileName: "raw.bin", contentType: "application/octet-stream")
            let echo = try await client.send(Request<Echo>(method: .post, path: "/echo", body: .multipart(form)))
            #expect(echo.headers["content-type"] == "multipart/form-data; boundary=courier-test")
            let received = try #require(Data(base64Encoded: echo.bodyBase64))
            #expect(received.range(of: binary) != nil)
            #expect(received.starts(with: Data("--courier-test\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda\r\n".utf8)))
        }
    }

    @Test("default headers reach the server; the request's own win", arguments: TransportKind.allCases)
    func headersOnTheWire(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.defaultHeaders = [.init("X-App")!: "demo", .init("X-Env")!: "test"] }
            let echo = try await client.send(Request<Echo>(path: "/echo", headers: [.init("X-Env")!: "override"]))
            #expect(echo.headers["user-agent"] == CourierInfo.userAgent)
            #expect(echo.headers["x-app"] == "demo")
            #expect(echo.headers["x-env"] == "override")
        }
    }

    @Test("a header with CR/LF never reaches the server", arguments: TransportKind.allCases)
    func headerInjectionNeverSent(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let before = server.requestCount
            await #expect(throws: APIError.self) {
                try await client.send(Request<Echo>(path: "/echo").header("X-Trace", "1\r\nX-Injected: 1"))
            }
            var subscripted = Request<Echo>(path: "/echo")
            subscripted.headers[HTTPField.Name("X-Trace")!] = "1\r\nX-Injected: 1"
            await #expect(throws: APIError.self) { try await client.send(subscripted) }
            #expect(server.requestCount == before)
        }
    }

    @Test("a gzip response is decoded", arguments: TransportKind.allCases)
    func gzip(_ kind: TransportKind) async throws {
        struct Item: Decodable, Sendable { var id: Int; var name: String }
        struct Compressed: Decodable, Sendable { var compressed: Bool; var items: [Item] }
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let value = try await client.send(Request<Compressed>(path: "/gzip"))
            #expect(value.compressed)
            #expect(value.items.count == 50)
            // Coding names are case-insensitive (RFC 9110 §8.4.1).
            let upper = try await client.send(Request<Compressed>(path: "/gzip?coding=GZIP"))
            #expect(upper.items.count == 50)
        }
    }

    @Test("text and invalid JSON responses", arguments: TransportKind.allCases)
    func textAndInvalidJSON(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            #expect(try await client.send(Request<String>(path: "/text")) == "hello")
            await #expect {
                try await client.send(Request<TestUser>(path: "/json/invalid"))
            } throws: { error in
                if (error as? APIError)?.kind == .decodingFailed { return true }
                return false
            }
        }
    }
}
