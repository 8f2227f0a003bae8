import Courier
import CourierAsyncHTTPClient
import CourierMacros
import CourierTestServer
import CourierURLSession
import Foundation
import Testing

/// What the loopback server's echo routes answer: the request as the server saw it.
struct EchoReply: Decodable, Sendable {
    var method: String
    var target: String
    var path: String
    var query: String?
    var headers: [String: String]
    var body: String
    var bodyBase64: String

    /// The raw body as text, invalid UTF-8 replaced.
    var rawText: String { String(decoding: Data(base64Encoded: bodyBase64) ?? Data(), as: UTF8.self) }
}

/// The echo routes, declared the macro way.
@Service
protocol EchoAPI {
    @GET("/echo/files/{name}") @QueryParams(["q"]) @Header("X-Trace", "trace")
    func file(name: String, q: String?, trace: String?) async throws -> EchoReply

    @GET(#"/echo/authors/{name="John Smith"}"#)
    func author(name: String?) async throws -> EchoReply

    @POST("/echo") @Body("model")
    func add(model: Post) async throws -> EchoReply

    @PUT("/echo") @FormURLEncoded
    func form(grant_type: String, username: String) async throws -> EchoReply

    @POST("/echo") @FileUpload @Body("image")
    func upload(_ image: Data, caption: String) async throws -> Response<EchoReply>

    @DELETE("/echo")
    func remove() async throws
}

/// Generated services against a real HTTP server on 127.0.0.1, over both transports.
@Suite("Generated services on the wire")
struct LoopbackTests {
    enum Kind: String, CaseIterable, Sendable {
        case asyncHTTPClient, urlSession

        func transport() -> any Transport {
            switch self {
            case .asyncHTTPClient: AsyncHTTPClientTransport()
            case .urlSession: URLSessionTransport()
            }
        }
    }

    @Test("hostile path values arrive as one encoded segment", arguments: Kind.allCases)
    func hostilePaths(kind: Kind) async throws {
        try await withTestServer { server in
            let echo = EchoAPIService(baseURL: server.baseURL, transport: kind.transport())

            let climb = try await echo.file(name: "../admin", q: nil, trace: nil)
            let mixed = try await echo.file(name: "a/b?c#d", q: "x y&z", trace: "t-1")
            let fallback = try await echo.author(name: nil)

            #expect(climb.target == "/echo/files/..%2Fadmin")
            #expect(mixed.target == "/echo/files/a%2Fb%3Fc%23d?q=x%20y%26z")
            #expect(mixed.headers["x-trace"] == "t-1")
            #expect(fallback.target == "/echo/authors/John%20Smith")
        }
    }

    @Test("JSON, form and multipart bodies arrive as declared", arguments: Kind.allCases)
    func bodies(kind: Kind) async throws {
        try await withTestServer { server in
            let echo = EchoAPIService(baseURL: server.baseURL, transport: kind.transport())

            let json = try await echo.add(model: Post(id: 1, title: "Hi"))
            let form = try await echo.form(grant_type: "password", username: "a&b")
            let upload = try await echo.upload(pngBytes, caption: "me")
            try await echo.remove()

            #expect(json.method == "POST")
            #expect(json.headers["content-type"] == "application/json")
            #expect(try JSONDecoder().decode(Post.self, from: Data(json.body.utf8)) == Post(id: 1, title: "Hi"))
            #expect(form.method == "PUT")
            #expect(form.body == "grant_type=password&username=a%26b")
            #expect(upload.statusCode == 200)
            #expect(upload.value.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(upload.value.rawText.contains(#"name="image"; filename="image.png""#))
            #expect(upload.value.rawText.contains(#"name="caption""# + "\r\n\r\nme\r\n"))
        }
    }
}
