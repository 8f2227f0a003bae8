import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Logging
import InMemoryLogging
import Testing

@Suite("cURL export")
struct CurlCommandTests {
    struct CreateNote: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var method: HTTPRequest.Method { .post }
        var query: [URLQueryItem] { [URLQueryItem(name: "api_key", value: "k-SECRET"), URLQueryItem(name: "draft", value: true)] }
        var headers: HTTPFields { [.authorization: "Bearer tok-SECRET", HTTPField.Name("X-Trace")!: "it's 1"] }
        var body: RequestBody? { .data(Data(#"{"title":"hi"}"#.utf8), contentType: "application/json") }
    }

    @Test("method, URL, headers and body, single-quoted, secrets redacted")
    func redactedByDefault() async throws {
        let (client, _) = makeClient()
        let curl = try await client.curlCommand(for: CreateNote()).description
        #expect(curl.hasPrefix("curl -X 'POST' 'https://api.example.com/v2/notes?api_key=%3Credacted%3E&draft=true'")
                || curl.hasPrefix("curl -X 'POST' 'https://api.example.com/v2/notes?api_key=<redacted>&draft=true'"))
        #expect(curl.contains(#"-H 'Authorization: <redacted>'"#))
        #expect(curl.contains(#"-H 'X-Trace: it'\''s 1'"#))
        #expect(curl.contains(#"--data-binary '{"title":"hi"}'"#))
        #expect(!curl.contains("SECRET"))
    }

    @Test("secrets only when asked for")
    func revealingSecrets() async throws {
        let (client, _) = makeClient()
        let curl = try await client.curlCommand(for: CreateNote(), revealingSecrets: true).description
        #expect(curl.contains("api_key=k-SECRET"))
        #expect(curl.contains("Bearer tok-SECRET"))
    }

    @Test("a streamed body is described, not read")
    func streamedBody() async throws {
        let (client, _) = makeClient()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID()).bin")
        try Data(repeating: 7, count: 10).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let curl = try await client.curlCommand(for: Request<Data>(method: .put, path: "/blob", body: .file(file, contentType: "application/octet-stream")))
        #expect(curl.description.hasSuffix("# streamed body not shown"))
    }

    @Test("an in-memory body over 1 MiB is described, not pasted and not an error")
    func largeInMemoryBody() async throws {
        let (client, _) = makeClient()
        let big = Data(repeating: UInt8(ascii: "a"), count: (1 << 20) + 1)
        let curl = try await client.curlCommand(for: Request<Data>(method: .put, path: "/blob", body: .data(big, contentType: "text/plain")))
        #expect(curl.description.hasSuffix("# body of 1048577 bytes not shown (over 1 MiB)"))
        #expect(!curl.description.contains("--data-binary"))
        // At the limit it is still shown.
        let atLimit = try await client.curlCommand(for: Request<Data>(method: .put, path: "/blob", body: .data(Data(repeating: UInt8(ascii: "a"), count: 1 << 20), contentType: "text/plain")))
        #expect(atLimit.description.contains("--data-binary"))
    }

    @Test("the verbose log transcript carries the command as sent, middleware headers redacted")
    func inTheVerboseTranscript() async throws {
        let logging = InMemoryLogHandler()
        let logger = Logger(label: "curl") { _ in logging }
        let stub = StubTransport()
        stub.on(nil, "/**", .status(204))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: stub,
                               // Logging last: it sees the request as the transport gets it, Authorization included.
                               middleware: [AuthenticationMiddleware(.bearer("tok-SECRET")), LoggingMiddleware(logger: logger, level: .info, style: .verbose)])
        _ = try await client.send(Request<Data>(method: .post, path: "/notes", body: .json(["title": "hi"])))
        let text = logging.entries.map { "\($0.message)" }.joined(separator: "\n")
        #expect(text.contains("🧾 cURL: curl -X 'POST' 'https://api.example.com/notes'"))
        #expect(text.contains("-H 'Authorization: <redacted>'"))
        #expect(text.contains(#"--data-binary '{"title":"hi"}'"#))
        #expect(!text.contains("tok-SECRET"))
    }
}
