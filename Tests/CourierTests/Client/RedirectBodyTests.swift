import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// A request body and a redirect to another origin.
@Suite("Redirects that would resend a body")
struct RedirectBodyTests {
    @Test("a 301 or 302 that keeps the method of an authenticated PUT would resend its body to another origin: refused like a 307", arguments: [301, 302])
    func authenticatedBodyNotResentElsewhere(status: Int) async throws {
        let (client, stub) = makeClient()
        stub.on(.put, "/doc", StubResponse(status: status, headers: [.location: "https://other.example.net/doc"]))
        stub.on(.put, "/doc", StubResponse(status: status, headers: [.location: "https://other.example.net/doc"]))
        let request = Request<Data>(method: .put, path: "/doc", headers: [.authorization: "Bearer t0ken"], body: .json(["secret": "s"]))
        let error = await #expect(throws: APIError.self) { try await client.send(request) }
        #expect(String(describing: error).contains("allowsCrossOriginBodyRedirects"))
        #expect(stub.requests.count == 1)
    }
}
