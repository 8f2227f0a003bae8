import Courier
import Foundation
import HTTPTypes
import Testing

/// A summary's URL is kept in two parts until it is read; what a caller sees, compares and
/// hashes is the whole URL, however it was put together.
@Suite("RequestSummary")
struct RequestSummaryTests {
    @Test("a summary from parts reads, compares and hashes as one built from the whole URL")
    func partsAndWholeAgree() {
        let parts = RequestSummary(method: "GET", origin: "https://api.example.com", target: "/v1/users?page=2", operationName: "ListUsers")
        let whole = RequestSummary(method: "GET", url: "https://api.example.com/v1/users?page=2", operationName: "ListUsers")
        #expect(parts.url == "https://api.example.com/v1/users?page=2")
        #expect(parts.description == "GET https://api.example.com/v1/users?page=2")
        #expect(parts == whole)
        #expect(parts.hashValue == whole.hashValue)
        #expect(Set([parts, whole]).count == 1)
        let other = RequestSummary(method: "GET", origin: "https://api.example.com/v1", target: "/users?page=3", operationName: "ListUsers")
        #expect(other != whole)
    }

    @Test("setting url replaces both parts")
    func settingURL() {
        var summary = RequestSummary(method: "POST", origin: "https://api.example.com", target: "/v1/login")
        summary.url = "https://other.example.net/x"
        #expect(summary.url == "https://other.example.net/x")
        #expect(summary == RequestSummary(method: "POST", url: "https://other.example.net/x"))
    }

    @Test("a sent request's summary names its whole URL with secret query values redacted")
    func sentRequestSummary() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users", .status(500))
        let request = Request<Data>(path: "/users", query: [URLQueryItem(name: "api_key", value: "s3cret"), URLQueryItem(name: "page", value: "2")])
        do {
            _ = try await client.send(request)
            Issue.record("a 500 must fail")
        } catch let error as APIError {
            #expect(error.request?.url == "https://api.example.com/v2/users?api_key=<redacted>&page=2")
            #expect(error.request?.operationName == "Request<Data>")
        }
    }
}
