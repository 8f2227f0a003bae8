import Courier
import CourierTesting
import Foundation
import Testing

@Suite("[URLQueryItem] literals with mixed value types")
struct QueryItemLiteralTests {
    struct Search: APIRequest {
        typealias Response = Data
        var page = 2
        var term: String? = "swift http"
        var archived = false
        var since: Date? = nil
        var path: RequestPath { "/search" }
        var query: [URLQueryItem] {
            [URLQueryItem(name: "page", value: page),
             URLQueryItem(name: "q", value: term),
             URLQueryItem(name: "archived", value: archived),
             URLQueryItem(name: "since", value: since),
             URLQueryItem(name: "ids", value: [3, 5]),
             URLQueryItem(name: "sort", value: "name")]
        }
    }

    @Test("Int, String?, Bool, a nil Date and a list mix without casts, in order")
    func mixedLiteral() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        _ = try await client.send(Search())
        #expect(stub.requests.first?.target == "/v2/search?page=2&q=swift%20http&archived=false&ids=3%2C5&sort=name")
    }

    @Test("dates are ISO 8601 in UTC")
    func dates() {
        let item = URLQueryItem(name: "since", value: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(item.value == "2027-01-15T08:00:00Z")
    }
}
