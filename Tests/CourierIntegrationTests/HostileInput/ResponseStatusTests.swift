import Courier
import CourierAsyncHTTPClient
import Testing

/// A status code outside 100–999 — which an HTTP/2 server can send in `:status`, unchecked by
/// NIO and AsyncHTTPClient — is a transport error, not swift-http-types' trap.
@Suite("Hostile input: response status codes")
struct ResponseStatusTests {
    @Test("codes outside 100–999 are refused with a transport error naming the code", arguments: [0, 42, 99, 1000, 2000, 65535])
    func outOfRange(_ code: Int) {
        #expect {
            _ = try AsyncHTTPClientTransport.status(code: code, reasonPhrase: "")
        } throws: { error in
            (error as? TransportError)?.kind == .other && "\(error)".contains("\(code)")
        }
    }

    @Test("three-digit codes pass with their reason phrase", arguments: [100, 200, 404, 599, 999])
    func inRange(_ code: Int) throws {
        let status = try AsyncHTTPClientTransport.status(code: code, reasonPhrase: "Because")
        #expect(status.code == code)
        #expect(status.reasonPhrase == "Because")
    }
}
