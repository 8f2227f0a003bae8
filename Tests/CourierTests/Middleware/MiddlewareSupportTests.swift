import Courier
import Foundation
import HTTPTypes
import Testing

@Suite("Middleware support: removing query items")
struct MiddlewareSupportTests {
    @Test("items named are removed, compared decoded; the rest stays byte for byte", arguments: [
        ("/v1/items?api_key=k&page=2", ["api_key"], "/v1/items?page=2"),
        ("/v1/items?page=2&api%5Fkey=k&q=a%20b+c", ["api_key"], "/v1/items?page=2&q=a%20b+c"),
        ("/v1/items?api_key=k&api_key=j", ["api_key"], "/v1/items"),
        ("/v1/items?api_key", ["api_key"], "/v1/items"),
        ("/v1/items?a=1&&b=2", ["b"], "/v1/items?a=1&"),
        ("/v1/items?page=2", ["api_key"], "/v1/items?page=2"),
        ("/v1/items", ["api_key"], "/v1/items"),
        ("https://api.example.com/v1/items?token=t&cursor=x#part", ["token"], "https://api.example.com/v1/items?cursor=x#part"),
        ("https://api.example.com/v1/items?token=t#part?token=u", ["token"], "https://api.example.com/v1/items#part?token=u"),
        ("https://api.example.com/v1/items?sig=1&page=2&key=3", ["sig", "key"], "https://api.example.com/v1/items?page=2"),
    ])
    func removing(reference: String, names: [String], expected: String) {
        #expect(RequestTarget.removingQueryItems(named: Set(names), from: reference) == expected)
    }

    @Test("on a request, the target changes only when an item goes")
    func onARequest() {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/items?api_key=old&page=2")
        RequestTarget.removeQueryItems(named: "api_key", from: &request)
        #expect(request.path == "/items?page=2")
        RequestTarget.removeQueryItems(named: "api_key", from: &request)
        #expect(request.path == "/items?page=2")
    }
}
