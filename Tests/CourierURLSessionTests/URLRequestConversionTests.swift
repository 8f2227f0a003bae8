import Courier
@testable import CourierURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// How ``URLSessionTransport`` turns swift-http-types' `HTTPRequest` into the `URLRequest` it
/// hands the session: the method, the header fields (repeated names joined, the transport's own
/// fields added only where the request has none) and the session's backstop timeout.
@Suite("HTTPRequest → URLRequest")
struct URLRequestConversionTests {
    private let context = RequestContext(operationName: "test", baseURL: URL(string: "https://api.example.com")!)

    private func request(_ fields: [(String, String)], method: HTTPRequest.Method = .get) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: "https", authority: "api.example.com", path: "/users?page=2")
        for (name, value) in fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return request
    }

    @Test("URL, method and distinct fields are carried over; the transport's fields are added")
    func distinctFields() throws {
        for method in [HTTPRequest.Method.get, .head, .post, .delete, HTTPRequest.Method("PURGE")!] {
            let converted = try URLSessionTransport.urlRequest(for: request([("Accept", "application/json"), ("X-Trace", "t1")], method: method), context: context)
            #expect(converted.url?.absoluteString == "https://api.example.com/users?page=2")
            #expect(converted.httpMethod == method.rawValue)
            // The session's backstop timer: the 60 s the context has left (rounded up to whole
            // seconds on Linux).
            #expect(converted.timeoutInterval > 59 && converted.timeoutInterval <= 60)
            let fields = try #require(converted.allHTTPHeaderFields)
            var expected = ["Accept": "application/json", "X-Trace": "t1"]
            for added in URLSessionTransport.addedHeaderFields { expected[added.name] = added.value }
            #expect(fields == expected)
        }
    }

    @Test("repeated names are joined under the name as first written, whatever their case; Cookie pairs with '; '")
    func repeatedNames() throws {
        let converted = try URLSessionTransport.urlRequest(for: request([
            ("X-Tag", "a"), ("Cookie", "s=1"), ("x-tag", "b"), ("Accept", "*/*"), ("cookie", "t=2"), ("X-TAG", "c"),
        ]), context: context)
        let fields = try #require(converted.allHTTPHeaderFields)
        #expect(fields["X-Tag"] == "a, b, c")
        #expect(fields["Cookie"] == "s=1; t=2")
        #expect(fields["Accept"] == "*/*")
        #expect(fields.count == 3 + URLSessionTransport.addedHeaderFields.count)
    }

    @Test("a field the request sets itself, in any case, is not replaced by the transport's own")
    func requestFieldsWin() throws {
        let converted = try URLSessionTransport.urlRequest(for: request([("accept-language", "fr"), ("ACCEPT-ENCODING", "identity")]), context: context)
        let fields = try #require(converted.allHTTPHeaderFields)
        #expect(fields == ["accept-language": "fr", "ACCEPT-ENCODING": "identity"])
    }

    @Test("many fields, repeated or not, are all carried over")
    func manyFields() throws {
        let names = (0..<200).map { "X-F\($0)" }
        let converted = try URLSessionTransport.urlRequest(for: request(names.map { ($0, "v") } + [("x-f7", "w")]), context: context)
        let fields = try #require(converted.allHTTPHeaderFields)
        #expect(fields.count == 200 + URLSessionTransport.addedHeaderFields.count)
        #expect(fields["X-F7"] == "v, w")
        #expect(fields["X-F199"] == "v")
    }
}
