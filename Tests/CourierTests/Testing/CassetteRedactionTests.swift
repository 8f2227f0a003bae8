import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Cassettes: secret body fields and hostile recordings")
struct CassetteRedactionTests {
    private static let baseURL = URL(string: "https://api.example.com")!

    /// Records one exchange through a stub that answers `response` and returns the file's text.
    private func record(
        _ request: Request<Data>, response: StubResponse, recorder: (any Transport, URL) -> RecordingTransport = { RecordingTransport($0, file: $1) }
    ) async throws -> (text: String, cassette: Cassette) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cassette-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let live = StubTransport()
        live.on(request.method, "/**", response)
        let client = APIClient(configuration: APIConfiguration(baseURL: Self.baseURL), transport: recorder(live, file))
        _ = try await client.send(request)
        return (try String(contentsOf: file, encoding: .utf8), try Cassette(contentsOf: file))
    }

    @Test("secret fields of JSON bodies are redacted at any depth, in requests and responses")
    func jsonBodies() async throws {
        let login = Request<Data>(method: .post, path: "/oauth/token", body: .data(Data(#"""
            {"username":"ada","password":"HUNTER2-SECRET","client":{"client_secret":"CS-SECRET","scopes":["a"]},
             "devices":[{"name":"phone","api_key":"AK-SECRET"}],"count":2}
            """#.utf8), contentType: "application/json"))
        let tokens = StubResponse.json([
            "access_token": "AT-SECRET", "refresh_token": "RT-SECRET", "id_token": "IT-SECRET", "token_type": "bearer",
            "expires_in": "3600",
        ])
        let (text, cassette) = try await record(login, response: tokens)
        for secret in ["HUNTER2-SECRET", "CS-SECRET", "AK-SECRET", "AT-SECRET", "RT-SECRET", "IT-SECRET"] {
            #expect(!text.contains(secret), "\(secret) leaked into the cassette")
        }
        let request = try #require(try JSONSerialization.jsonObject(with: cassette.exchanges[0].request.bodyData) as? [String: Any])
        #expect(request["username"] as? String == "ada")
        #expect(request["password"] as? String == "<redacted>")
        #expect((request["client"] as? [String: Any])?["scopes"] as? [String] == ["a"])
        #expect(((request["devices"] as? [[String: Any]])?.first)?["name"] as? String == "phone")
        let response = try #require(try JSONSerialization.jsonObject(with: cassette.exchanges[0].response.bodyData) as? [String: Any])
        #expect(response["token_type"] as? String == "bearer")
        #expect(response["access_token"] as? String == "<redacted>")
    }

    @Test("secret fields of form bodies are redacted; other fields and their order stay")
    func formBodies() async throws {
        let login = Request<Data>(method: .post, path: "/login",
                                  body: .form([("username", "ada"), ("password", "HUNTER2 SECRET"), ("grant_type", "password"), ("client_secret", "CS")]))
        let (text, cassette) = try await record(login, response: .text("ok"))
        #expect(!text.contains("HUNTER2"))
        #expect(cassette.exchanges[0].request.body == "username=ada&password=<redacted>&grant_type=password&client_secret=<redacted>")
    }

    @Test("users add body fields; bodies that are not JSON or a form are recorded as they are")
    func extraFieldsAndOtherBodies() async throws {
        let request = Request<Data>(method: .post, path: "/otp", body: .json(["otp_code": "123456", "note": "password=x"]))
        let (text, _) = try await record(request, response: .text("password=plain text, not a form")) {
            RecordingTransport($0, file: $1, redactBodyFields: ["OTP_Code"])
        }
        #expect(!text.contains("123456"))
        #expect(text.contains("password=plain text, not a form"))
        #expect(text.contains("password=x"), "a JSON string value is not parsed as a form")
    }

    @Test("a Link header's URLs keep no secret query value, the recorder's own names included")
    func linkHeader() async throws {
        let link = #"<https://api.example.com/v1/items?cursor_sig=SIG-SECRET&page=2>; rel="next", </v1/items?access_token=TOK-SECRET>; rel="first""#
        let (text, _) = try await record(Request<Data>(path: "/items"), response: StubResponse.text("[]").header(HTTPField.Name("Link")!, link)) {
            RecordingTransport($0, file: $1, redactQueryItems: ["cursor_sig"])
        }
        #expect(!text.contains("SIG-SECRET"))
        #expect(!text.contains("TOK-SECRET"))
        #expect(text.contains("page=2") && text.contains(#"rel=\"next\""#))
    }

    @Test("a JSON body sent with another content type (text/plain, text/html) has its secret fields redacted too")
    func jsonUnderAnotherType() async throws {
        let (text, _) = try await record(Request<Data>(path: "/token"),
                                         response: StubResponse.text(#"{"access_token": "TOKEN-SECRET", "expires_in": 3600}"#))
        #expect(!text.contains("TOKEN-SECRET"))
        #expect(text.contains("3600"))
    }

    @Test("JSON that does not parse as one document keeps its secrets out too: behind )]}' or a byte-order mark, NDJSON, cut short, an event stream, JSONP",
          arguments: [")]}'\n{\"access_token\":\"AT-SECRET\",\"expires_in\":3600}", "\u{FEFF}{\"access_token\":\"AT-SECRET\",\"expires_in\":3600}",
                      "{\"refresh_token\":\"AT-SECRET\"}\n{\"expires_in\":3600}\n", "{\"access_token\":\"AT-SECRET\",\"expires_in\":36",
                      "data: {\"access_token\":\"AT-SECRET\",\"expires_in\":3600}\n\n", "cb({\"access_token\":\"AT-SECRET\",\"expires_in\":3600})"])
    func unparseableJSON(_ body: String) async throws {
        let (text, _) = try await record(Request<Data>(path: "/token"), response: .json(data: Data(body.utf8)))
        #expect(!text.contains("AT-SECRET"), "\(text)")
        #expect(text.contains("expires_in"))
    }

    @Test("an HTML page with quotes and a secret-looking query in a link is recorded as it is")
    func htmlIsRecordedAsItIs() async throws {
        let page = #"<p>"Hi"</p><a href="/x?page=2&session_id=abc">next</a><footer>end</footer>"#
        let (_, cassette) = try await record(Request<Data>(path: "/page"), response: .data(Data(page.utf8), contentType: "text/html"))
        #expect(cassette.exchanges[0].response.body == page)
    }

    @Test("a redirect's Location keeps no secret query value (a presigned URL's signature and token)")
    func redirectLocation() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cassette-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let live = StubTransport()
        live.on(.get, "/download", .status(302, headers: [.location: "/bucket/k?X-Amz-Signature=SIG-SECRET&X-Amz-Security-Token=TOK-SECRET&part=1"]))
        live.on(.get, "/bucket/k", .text("bytes"))
        let client = APIClient(configuration: APIConfiguration(baseURL: Self.baseURL), transport: RecordingTransport(live, file: file))
        _ = try await client.send(Request<Data>(path: "/download"))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("SIG-SECRET"))
        #expect(!text.contains("TOK-SECRET"))
        #expect(text.contains("part=1"))
    }

    @Test("a redirect's Location keeps no token in its fragment (OAuth's implicit flow)")
    func redirectLocationFragment() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cassette-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let live = StubTransport()
        live.on(.get, "/authorize", .status(302, headers: [.location: "/cb?state=s1#access_token=AT-SECRET&expires_in=3600"]))
        live.on(.get, "/cb", .text("ok"))
        let client = APIClient(configuration: APIConfiguration(baseURL: Self.baseURL), transport: RecordingTransport(live, file: file))
        _ = try await client.send(Request<Data>(path: "/authorize"))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("AT-SECRET"))
        #expect(text.contains("expires_in=3600"))
    }

    @Test("the secret names the client knows — its configuration's and its middleware's — are redacted in the cassette too")
    func contextSecretNames() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cassette-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let live = StubTransport()
        live.on(.get, "/**", .text("ok"))
        var configuration = APIConfiguration(baseURL: Self.baseURL)
        configuration.sensitiveQueryNames = ["sessionref"]
        configuration.sensitiveHeaders = [HTTPField.Name("X-Tenant-Pass")!]
        let client = APIClient(configuration: configuration, transport: RecordingTransport(live, file: file),
                               middleware: [AuthenticationMiddleware(.apiKey("K-SECRET", header: "X-App-Key"))])
        _ = try await client.send(Request<Data>(path: "/items", headers: [HTTPField.Name("X-Tenant-Pass")!: "TP-SECRET"]).query("sessionref", "SR-SECRET"))
        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in ["K-SECRET", "TP-SECRET", "SR-SECRET"] {
            #expect(!text.contains(secret), "\(secret) leaked into the cassette")
        }
    }

    @Test("users add query names for the cassette's URLs")
    func extraQueryNames() async throws {
        let request = Request<Data>(path: "/maps", query: [.init(name: "key", value: "AIza-SECRET"), .init(name: "sig", value: "SIG-SECRET")])
        let (text, _) = try await record(request, response: .text("ok")) {
            RecordingTransport($0, file: $1, redactQueryItems: ["key"])
        }
        #expect(!text.contains("AIza-SECRET"))
        #expect(!text.contains("SIG-SECRET"))
    }

    @Test("a cassette with a status outside 100...999 fails the request with a clear error, never the process", arguments: [-1, 0, 42, 99, 1000, Int.max, Int.min])
    func hostileStatus(_ status: Int) async throws {
        let replay = ReplayTransport(cassette: Cassette(exchanges: [
            .init(request: .init(method: "GET", url: "https://api.example.com/odd", headers: []),
                  response: .init(status: status, headers: [], body: "x")),
        ]))
        let client = APIClient(configuration: APIConfiguration(baseURL: Self.baseURL), transport: replay)
        await #expect {
            try await client.send(Request<String>(path: "/odd"))
        } throws: { error in
            let description = "\((error as? APIError)?.underlyingError ?? error)"
            return description.contains("\(status)") && description.contains("GET https://api.example.com/odd")
        }
    }

    @Test("a cassette whose body or headers cannot be replayed as recorded fails with InvalidExchange, never other bytes", arguments: [
        Cassette.RecordedMessage(status: 200, headers: [], body: "%%%", bodyEncoding: "base64"),
        Cassette.RecordedMessage(status: 200, headers: [], body: "x", bodyEncoding: "gzip"),
        Cassette.RecordedMessage(status: 200, headers: [["X-Only-A-Name"]], body: "x"),
        Cassette.RecordedMessage(status: 200, headers: [["Bad Name", "v"]], body: "x"),
    ])
    func unreplayableAnswer(_ response: Cassette.RecordedMessage) async throws {
        let replay = ReplayTransport(cassette: Cassette(exchanges: [
            .init(request: .init(method: "GET", url: "https://api.example.com/odd", headers: []), response: response),
        ]))
        let client = APIClient(configuration: APIConfiguration(baseURL: Self.baseURL), transport: replay)
        await #expect {
            try await client.send(Request<String>(path: "/odd"))
        } throws: { error in
            (error as? APIError)?.underlyingError is ReplayTransport.InvalidExchange
        }
    }
}

