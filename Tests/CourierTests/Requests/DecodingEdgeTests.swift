import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Decoding an empty body, and a request's idle timeout at the ends of its range.
@Suite("Decoding and limits at the edges")
struct DecodingEdgeTests {
    struct User: Codable, Sendable, Equatable { var name: String }

    @Test("an optional response type accepts an empty body (a 204) as nil, as decodeJSON promises")
    func optionalAcceptsEmptyBody() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/me", .status(204))
        #expect(try await client.send(Request<User?>(path: "/me")) == nil)
    }

    @Test("String? and Data? responses are the text and the bytes, as String and Data are (nil for an empty body), not JSON")
    func optionalTextAndBytes() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/text", .text("hello"))
        stub.on(.get, "/quoted", .json(#""hi""#))
        stub.on(.get, "/bytes", .data(Data([0xFF, 0x00])))
        stub.on(.get, "/none", .status(204))
        #expect(try await client.send(Request<String?>(path: "/text")) == "hello")
        #expect(try await client.send(Request<String?>(path: "/quoted")) == #""hi""#)
        #expect(try await client.send(Request<String>(path: "/quoted")) == #""hi""#)
        #expect(try await client.send(Request<Data?>(path: "/bytes")) == Data([0xFF, 0x00]))
        #expect(try await client.send(Request<String?>(path: "/none")) == nil)
        #expect(try await client.send(Request<Data?>(path: "/none")) == nil)
    }

    @Test("an idle timeout of Int64.max seconds means no idle timeout, not a trap")
    func hugeIdleTimeout() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/x", .text("ok"))
        var options = RequestOptions()
        options.idleTimeout = .seconds(Int64.max)
        #expect(try await client.send(Request<Data>(path: "/x", options: options)) == Data("ok".utf8))
    }
}
