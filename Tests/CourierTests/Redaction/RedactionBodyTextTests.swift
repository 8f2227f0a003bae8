import Courier
import CourierTesting
import Foundation
import Testing

/// Secrets in a body quoted by an error's description are hidden whatever comes before the
/// JSON (a byte-order mark, an anti-hijacking prefix), and in a form body with spaces.
@Suite("Redaction: bodies quoted in errors")
struct RedactionBodyTextTests {
    struct Token: Decodable, Sendable { var access_token: String; var expires_in: Int }

    @Test("a JSON body after a byte-order mark or )]}' keeps its token out of a decoding error", arguments: ["\u{FEFF}", ")]}'\n", "\n\u{FEFF} "])
    func prefixedJSON(_ prefix: String) async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/token", .json(data: Data((prefix + #"{"access_token":"eyJSECRET","expires_in":"soon"}"#).utf8)))
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Token>(path: "/token")) }
        #expect(error?.kind == .decodingFailed)
        let text = error.map { "\($0)" } ?? ""
        #expect(!text.contains("eyJSECRET"), "\(text)")
        #expect(text.contains("expires_in"))
    }

    @Test("a form body with a space in a value keeps its token out of an HTTP error")
    func formWithSpaces() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/token", .data(Data("error=bad request&refresh_token=RT-SECRET&x=1".utf8), contentType: "application/x-www-form-urlencoded", status: 400))
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Token>(path: "/token")) }
        let text = error.map { "\($0)" } ?? ""
        #expect(!text.contains("RT-SECRET"), "\(text)")
        #expect(text.contains("error=bad request"))
    }

    @Test("an error body's message is read after a byte-order mark")
    func messageAfterByteOrderMark() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/quota", .json(data: Data("\u{FEFF}{\"message\":\"quota exceeded\"}".utf8), status: 429))
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Token>(path: "/quota")) }
        #expect(error?.message == "quota exceeded")
    }

    @Test("form bodies: a value holding quotes is redacted whole; the first field after a byte-order mark or a line break too", arguments: [
        #"a="token":"x&password=hun"ter2&b=1"#, "\u{FEFF}password=hunter2&a=1", "\npassword=hunter2&a=1",
    ])
    func formEdges(_ body: String) async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/login", .data(Data(body.utf8), contentType: "application/x-www-form-urlencoded", status: 400))
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Token>(path: "/login")) }
        let text = error.map { "\($0)" } ?? ""
        #expect(!text.contains("hun"), "\(text)")
        #expect(!text.contains("ter2"), "\(text)")
    }
}
