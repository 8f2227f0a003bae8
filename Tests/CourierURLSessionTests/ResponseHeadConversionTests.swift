@testable import CourierURLSession
import Foundation
import HTTPTypes
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a URLSession response head becomes an `HTTPResponse`.
@Suite("URLSession response heads")
struct ResponseHeadConversionTests {
    @Test("Set-Cookie fields that HTTPURLResponse folded into one are handed on as separate fields; other fields stay as they are")
    func foldedSetCookieIsSplit() throws {
        let url = try #require(URL(string: "https://example.com/"))
        let response = try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [
            "Set-Cookie": "a=1; Path=/, b=2; Expires=Fri, 01 Jan 2100 00:00:00 GMT",
            "Cache-Control": "no-cache, no-store",
        ]))
        let head = try TaskHandler.head(from: response)
        #expect(head.headerFields[values: .setCookie] == ["a=1; Path=/", "b=2; Expires=Fri, 01 Jan 2100 00:00:00 GMT"])
        #expect(head.headerFields[.cacheControl] == "no-cache, no-store")
    }

    @Test("a folded Set-Cookie value that splits into more fields than the limit is refused, naming it, without a trap")
    func foldedSetCookiePastTheLimit() async {
        await #expect(processExitsWith: .success) {
            let url = URL(string: "https://example.com/")!
            let folded = Array(repeating: "a=", count: 70_000).joined(separator: ",")
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Set-Cookie": folded])!
            do {
                _ = try TaskHandler.head(from: response)
                exit(1)
            } catch {
                guard "\(error)".contains("more than 10000 header fields") else { exit(2) }
            }
        }
    }
}
