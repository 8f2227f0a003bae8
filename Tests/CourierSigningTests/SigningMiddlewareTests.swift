import Courier
import CourierSigning
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite struct SigningMiddlewareTests {
    private static let baseURL = URL(string: "https://api.example.com/v1")!

    private func client(_ stub: StubTransport, _ scheme: SigningMiddleware.Scheme) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: Self.baseURL), transport: stub, middleware: [SigningMiddleware(scheme)])
    }

    private func request(_ method: HTTPRequest.Method, _ path: RequestPath, body: RequestBody? = nil) -> Request<Void> {
        Request<Void>(method: method, path: path, body: body)
    }

    // MARK: Signed parameters: MD5 over sorted parameters

    @Test func md5StringToSignSortsDropsExcludedKeysAndAppendsTheSecret() {
        let signature = MD5ParameterSignature(secret: "S", excludedKeys: ["pub_ticket"])
        let text = signature.stringToSign([("b", "2"), ("pub_ticket", "t"), ("a", "1"), ("pub_sign", "old")])
        #expect(text == "a=1&b=2&key=S")
        #expect(signature.stringToSign([]) == "key=S")
    }

    @Test func md5KnownAnswerInTheQuery() async throws {
        let stub = StubTransport()
        stub.on(.get, "/client/config", .status(200))
        let secret = "rpbs6us1m8r2j9g6u06ff2bo18orwaya"
        let client = client(stub, .md5Parameters(MD5ParameterSignature(secret: secret)))
        try await client.send(request(.get, "/client/config?b=two%20words&a=1&c="))
        // md5("a=1&b=two words&c=&key=rpbs6us1m8r2j9g6u06ff2bo18orwaya"), upper-case hex
        let sent = try #require(stub.requests.last)
        #expect(sent.queryItems.last == URLQueryItem(name: "pub_sign", value: "B64F2ED317C9188224FBCFE68E67CAC5"))
    }

    @Test("a stale signature already in the target (a next-page link that echoes the query) is replaced, not sent beside the new one")
    func md5ReplacesAStaleSignature() async throws {
        let stub = StubTransport()
        stub.on(.get, "/client/config", .status(200))
        let secret = "rpbs6us1m8r2j9g6u06ff2bo18orwaya"
        let client = client(stub, .md5Parameters(MD5ParameterSignature(secret: secret)))
        try await client.send(request(.get, "/client/config?b=two%20words&pub_sign=STALE&a=1&c="))
        let sent = try #require(stub.requests.last)
        #expect(sent.queryItems.filter { $0.name == "pub_sign" } == [URLQueryItem(name: "pub_sign", value: "B64F2ED317C9188224FBCFE68E67CAC5")])
    }

    @Test func md5SignsFormFieldsAndCanGoInAHeader() async throws {
        let stub = StubTransport()
        stub.on(.post, "/auth/login", .status(200))
        let scheme = MD5ParameterSignature(secret: "secret", placement: .header("X-Pub-Sign"))
        let client = client(stub, .md5Parameters(scheme))
        try await client.send(request(.post, "/auth/login?os=iOS&deviceId=ABC123&appVersion=1.0.0", body: .form([("username", "ada")])))
        // md5("appVersion=1.0.0&deviceId=ABC123&os=iOS&username=ada&key=secret")
        #expect(stub.requests.last?.headers[HTTPField.Name("X-Pub-Sign")!] == "E7428C1CA44CBA90B34CAAD6E288B89C")
        #expect(stub.requests.last?.bodyText == "username=ada")
    }

    @Test("a JSON object body is signed member by member, as Swift writes the values; the seed's login is covered")
    func md5SignsJSONObjectMembers() async throws {
        let stub = StubTransport()
        stub.on(.post, "/auth/login", .status(200))
        let scheme = MD5ParameterSignature(secret: "secret")
        let client = client(stub, .md5Parameters(scheme))
        struct Login: Encodable, Sendable { var username = "ada"; var remember = true; var attempts = 3; var note: String? = nil }
        try await client.send(request(.post, "/auth/login?os=iOS", body: .json(Login())))
        let sent = try #require(stub.requests.last)
        #expect(sent.queryItems.last?.value == scheme.signature(for: [("os", "iOS"), ("username", "ada"), ("remember", "true"), ("attempts", "3")]))
        #expect(scheme.stringToSign(scheme.parameters(of: sent.request, body: sent.body)) == "attempts=3&os=iOS&remember=true&username=ada&key=secret")
    }

    @Test("a body the signature cannot cover is refused before anything is sent, with the way out named; unsignedBodies: .allowed sends it")
    func md5RefusesBodiesItCannotSign() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .status(200))
        let strict = client(stub, .md5Parameters(MD5ParameterSignature(secret: "secret")))
        let bodies: [RequestBody] = [
            .data(Data([0xFF, 0xD8, 0xFF]), contentType: "image/jpeg"),
            .json(["a", "b"]),                                    // an array
            .json(["outer": ["inner": "x"]]),                     // a nested object
            .stream(HTTPBody(AsyncThrowingStream { $0.yield(ArraySlice("once".utf8)); $0.finish() }, length: .unknown, iterationBehavior: .single),
                    contentType: "application/json"),
        ]
        for body in bodies {
            do {
                try await strict.send(request(.post, "/upload", body: body))
                Issue.record("a body outside the signature was sent")
            } catch {
                #expect("\(error)".contains("unsignedBodies: .allowed"), "\(error)")
            }
        }
        #expect(stub.requests.isEmpty)

        let lenient = client(stub, .md5Parameters(MD5ParameterSignature(secret: "secret", unsignedBodies: .allowed)))
        try await lenient.send(request(.post, "/upload?a=1", body: .data(Data([0xFF, 0xD8, 0xFF]), contentType: "image/jpeg")))
        #expect(stub.requests.last?.queryItems.last?.value == MD5ParameterSignature(secret: "secret").signature(for: [("a", "1")]))
    }

    // MARK: HMAC-SHA256 over a canonical request

    @Test func hmacKnownAnswerOverTheCanonicalRequest() async throws {
        let stub = StubTransport()
        stub.on(.post, "/orders", .status(200))
        let scheme = HMACRequestSignature(secret: Data("s3cret".utf8), clock: ManualClock())
        let client = client(stub, .hmacSHA256(scheme))
        try await client.send(request(.post, "/orders?b=two%20words&a=1", body: .data(Data(#"{"item":"book"}"#.utf8), contentType: "application/json")))
        let sent = try #require(stub.requests.last)
        #expect(sent.headers[HTTPField.Name("X-Timestamp")!] == "1700000000")
        #expect(sent.headers[HTTPField.Name("X-Signature")!] == "6aaebaf1cf918b82d4c8b5ed0c0c2fcdc4170127f42f7a7d192dcab7e740e2e0")
        let canonical = scheme.canonicalRequest(sent.request, body: sent.body)
        #expect(canonical == """
        POST
        /v1/orders
        a=1&b=two%20words
        content-type:application/json
        host:api.example.com
        x-timestamp:1700000000

        content-type;host;x-timestamp
        4ddc693ce39779d2725b70213ef414e8020b7bda853b0b22fe09354deadb2898
        """)
    }

    @Test("each same-origin redirect hop is signed again: its signature covers the request that hop sends, not the first one")
    func redirectHopsAreSignedAgain() async throws {
        // MD5 in the query: the Location has no pub_sign of its own.
        let stub = StubTransport()
        // The Location's query differs, so hop 2's signature must too.
        stub.on(.get, "/orders", StubResponse(status: 301, headers: [.location: "/v1/orders/all?a=2"]))
        stub.on(.get, "/orders/all", .status(200))
        let md5 = MD5ParameterSignature(secret: "S")
        try await client(stub, .md5Parameters(md5)).send(request(.get, "/orders?a=1"))
        #expect(stub.requests.count == 2)
        #expect(stub.requests.first?.queryItems.filter { $0.name == "pub_sign" } == [URLQueryItem(name: "pub_sign", value: md5.signature(for: [("a", "1")]))])
        #expect(stub.requests.last?.queryItems.filter { $0.name == "pub_sign" } == [URLQueryItem(name: "pub_sign", value: md5.signature(for: [("a", "2")]))])

        // HMAC: a 303 turns the POST into a GET of another path, without the body.
        let hmacStub = StubTransport()
        hmacStub.on(.post, "/orders", StubResponse(status: 303, headers: [.location: "/v1/receipts/1"]))
        hmacStub.on(.get, "/receipts/1", .status(200))
        let scheme = HMACRequestSignature(secret: Data("s3cret".utf8), clock: ManualClock())
        try await client(hmacStub, .hmacSHA256(scheme)).send(request(.post, "/orders", body: .data(Data("{}".utf8), contentType: "application/json")))
        let hop = try #require(hmacStub.requests.last)
        #expect(hop.request.method == .get)
        #expect(hop.headers[HTTPField.Name("X-Signature")!] == scheme.signature(of: scheme.canonicalRequest(hop.request, body: hop.body)))
    }

    @Test func hmacMatchesTheRFCStyleVector() {
        let scheme = HMACRequestSignature(secret: Data("key".utf8))
        #expect(scheme.signature(of: "The quick brown fox jumps over the lazy dog")
            == "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8")
    }

    @Test func aSinglePassBodyIsSignedAsUnsignedPayloadAndStillSent() async throws {
        let stub = StubTransport()
        stub.on(.put, "/blob", .status(200))
        let scheme = HMACRequestSignature(secret: Data("k".utf8))
        let client = client(stub, .hmacSHA256(scheme))
        let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
        continuation.yield(ArraySlice("streamed".utf8))
        continuation.finish()
        try await client.send(request(.put, "/blob", body: .stream(HTTPBody(stream, length: .unknown, iterationBehavior: .single))))
        let sent = try #require(stub.requests.last)
        #expect(sent.bodyText == "streamed")
        #expect(scheme.canonicalRequest(sent.request, body: nil).hasSuffix("\nUNSIGNED-PAYLOAD"))
        #expect(sent.headers[HTTPField.Name("X-Signature")!] == scheme.signature(of: scheme.canonicalRequest(sent.request, body: nil)))
    }

    // MARK: Closure

    @Test func aClosureSeesTheBodyAndChangesTheRequest() async throws {
        let stub = StubTransport()
        stub.on(.post, "/x", .status(200))
        let client = client(stub, .custom { request, body in
            request.headerFields[HTTPField.Name("X-Body-Length")!] = String(body?.count ?? -1)
        })
        try await client.send(request(.post, "/x", body: .data(Data("12345".utf8), contentType: "text/plain")))
        #expect(stub.requests.last?.headers[HTTPField.Name("X-Body-Length")!] == "5")
    }
}
