import Courier
@testable import CourierURLSession
import Foundation
import HTTPTypes
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A status code outside 100–999 — which an HTTP/2 server can send in `:status`, unchecked by
/// NIO, AsyncHTTPClient and URLSession — is a transport error, not swift-http-types' trap. Both
/// transports build a response's status with `HTTPResponse.Status.checked(code:reasonPhrase:)`.
@Suite("Hostile input: response status codes")
struct ResponseStatusTests {
    static let outside = [0, 42, 99, 1000, 2000, 65535]

    @Test("codes outside 100–999 are refused with a transport error naming the code", arguments: outside)
    func outOfRange(_ code: Int) {
        #expect {
            _ = try HTTPResponse.Status.checked(code: code, reasonPhrase: "")
        } throws: { error in
            (error as? TransportError)?.kind == .other && "\(error)".contains("\(code)")
        }
    }

    @Test("three-digit codes pass with their reason phrase", arguments: [100, 200, 404, 599, 999])
    func inRange(_ code: Int) throws {
        let status = try HTTPResponse.Status.checked(code: code, reasonPhrase: "Because")
        #expect(status.code == code)
        #expect(status.reasonPhrase == "Because")
    }

    @Test("URLSession: a response head with such a code is a transport error, not a trap", arguments: outside)
    func urlSessionHead(_ code: Int) throws {
        let url = try #require(URL(string: "https://example.com/"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: code, httpVersion: "HTTP/2", headerFields: [:]))
        #expect {
            _ = try TaskHandler.head(from: response)
        } throws: { error in
            (error as? TransportError)?.kind == .other && "\(error)".contains("\(code)")
        }
    }
}
