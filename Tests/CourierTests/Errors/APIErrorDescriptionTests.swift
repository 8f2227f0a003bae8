import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("APIError descriptions")
struct APIErrorDescriptionTests {
    private static let request = RequestSummary(method: "GET", url: "https://api.example.com/users/7")

    @Test("a URLError's failing URL (with a secret query value) never reaches a description, a log line or a trace")
    func urlErrorURLNotDescribed() async throws {
        let failing = "https://api.example.com/v2/a?api_key=SECRET-KEY"
        let urlError = URLError(.cannotConnectToHost, userInfo: ["NSErrorFailingURLStringKey": failing,   // NSURLErrorFailingURLStringErrorKey (deprecated), as FoundationNetworking still sets it
                                                                  NSURLErrorFailingURLErrorKey: URL(string: failing)!])
        #expect("\(urlError)".contains("SECRET-KEY"))   // what the transport's error itself prints
        let transportError = TransportError(.connectionFailed, "could not connect", underlying: urlError)
        #expect(!"\(transportError)".contains("SECRET-KEY"))
        #expect("\(transportError)".contains("-1004"))
        let (client, stub) = makeClient()
        stub.on(.get, "/a", .failure(transportError))
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/a")) }
        #expect(error.map { "\($0)" }?.contains("SECRET-KEY") == false)

        // A URLError reaching the client on its own (from a body an adapted transport streams, a
        // middleware of yours) is a network failure, described without its URL too.
        let raw = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/v2")!),
                            transport: MiddlewareTestTransport { _, _, _ in throw urlError })
        let rawError = await #expect(throws: APIError.self) { try await raw.send(Request<Data>(path: "/a")) }
        #expect(rawError?.kind == .network)
        #expect(rawError.map { "\($0)" }?.contains("SECRET-KEY") == false)
        #expect(!"\(AuthenticationError(.refreshFailed, underlying: urlError))".contains("SECRET-KEY"))
    }

    @Test("a server's message and body cannot forge log lines or send terminal escapes")
    func serverTextIsEscaped() {
        let message = "not found\n2026-01-01 INFO login ok user=admin\u{1B}[2K\u{2028}"
        let body = Data("{\"message\":\"x\"}\r\n\u{1B}]0;owned\u{7}\u{9B}".utf8)
        let error = APIError.httpError(statusCode: 404, message: message, response: HTTPResponse(status: .notFound), body: body, request: Self.request)
        let text = error.description
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" })
        #expect(text.contains(#"not found\n2026-01-01 INFO login ok user=admin\u{1B}[2K\u{2028}"#))
        #expect(text.contains(#"\r\n\u{1B}]0;owned\u{7}\u{9B}"#))
    }

    @Test("an unexpected content type from the server is escaped too")
    func contentTypeIsEscaped() {
        let error = APIError.unexpectedContentType(request: Self.request, expected: ["application/json"], received: "text/html\u{1B}[8m")
        #expect(error.description.contains(#"text/html\u{1B}[8m"#))
    }

    @Test("a decoding error that quotes a huge server value (an unknown enum case, a dictionary key) is cut, not a description of megabytes")
    func decodingCauseIsBounded() async throws {
        enum Status: String, Decodable { case active }
        struct Account: Decodable { var status: Status }
        struct Named: Decodable { var values: [String: Int] }
        let huge = String(repeating: "A", count: 1 << 20)
        let (client, stub) = makeClient()
        stub.on(.get, "/account", .json(#"{"status": "\#(huge)"}"#))
        stub.on(.get, "/named", .json(#"{"values": {"\#(huge)": "x"}}"#))
        stub.on(.get, "/controls", .json(#"{"status": "\#(String(repeating: "\\u0001", count: 1 << 16))"}"#))
        for (path, decode) in [("/account", { try await client.send(Request<Account>(path: "/account")) as Any }),
                               ("/named", { try await client.send(Request<Named>(path: "/named")) as Any }),
                               ("/controls", { try await client.send(Request<Account>(path: "/controls")) as Any })] {
            let error = await #expect(throws: APIError.self, "\(path)") { _ = try await decode() }
            #expect(error?.kind == .decodingFailed)
            let text = error.map { "\($0)" } ?? ""
            #expect(text.utf8.count < 8_000, "\(path): \(text.utf8.count) bytes")
            #expect(text.contains("…"), "\(path)")
        }
    }
}
