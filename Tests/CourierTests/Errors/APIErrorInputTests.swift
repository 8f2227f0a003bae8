import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// What an error shows of what a server sent, and errors built from unusual values.
@Suite("APIError: hostile values")
struct APIErrorInputTests {
    private let request = RequestSummary(method: "GET", url: "https://api.example.com/token")

    @Test("a body quoted in a description hides its secret fields (the body itself stays whole)")
    func quotedBodyIsRedacted() {
        let body = Data(#"{"access_token":"eyJ-SECRET","token_type":"bearer","scope":"read"}"#.utf8)
        let decoding = APIError.decodingFailed(request: request, type: "Token", underlying: CocoaError(.coderValueNotFound), body: body)
        let http = APIError.httpError(statusCode: 400, message: nil, response: HTTPResponse(status: .badRequest), body: body, request: request)
        for error in [decoding, http] {
            #expect(!error.description.contains("eyJ-SECRET"))
            #expect(error.description.contains(#""token_type":"bearer""#))
            #expect(error.body == body)
        }
    }

    @Test("httpError with a status outside 0…999 does not trap")
    func outOfRangeStatus() {
        for code in [-1, 1_000, Int.max] {
            let error = APIError.httpError(statusCode: code, message: nil, response: HTTPResponse(status: .badGateway), body: Data(), request: request)
            #expect(error.kind == .httpError)
        }
    }

    @Test("a server's message is cut by bytes too: a line of combining marks cannot make a description of a hundred kilobytes")
    func messageIsBoundedInBytes() async throws {
        let (client, stub) = makeClient()
        let mark = String(repeating: "a" + String(repeating: "\u{301}", count: 400), count: 300)
        let json = String(data: try JSONSerialization.data(withJSONObject: ["message": mark]), encoding: .utf8)!
        stub.on(.get, "/x", .json(json, status: 400))
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/x")) }
        #expect((error?.message?.utf8.count ?? 0) <= 1_024)
    }
}
