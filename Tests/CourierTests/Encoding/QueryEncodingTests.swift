@testable import Courier
import Foundation
import Testing

@Suite("Query and form encoding")
struct QueryEncodingTests {
    @Test("names and values are RFC 3986 encoded, nil values left out, order kept")
    func rfc3986() {
        let items = [
            URLQueryItem(name: "q", value: "a&b=c+d e"),
            URLQueryItem(name: "skip", value: nil),
            URLQueryItem(name: "name", value: "Zoë"),
            URLQueryItem(name: "x;y,z#", value: "~._-"),
        ]
        #expect(QueryEncoding.encode(items) == "q=a%26b%3Dc%2Bd%20e&name=Zo%C3%AB&x%3By%2Cz%23=~._-")
    }

    @Test("arrays are repeated keys by default, brackets or commas on request")
    func arrays() {
        let tags: [String] = ["swift", "http"]
        let missing: String? = nil
        let pairs: [(String, any QueryValue)] = [("page", 2), ("tag", tags), ("q", missing), ("on", true)]
        #expect(QueryEncoding.encode(.query(pairs)) == "page=2&tag=swift&tag=http&on=true")
        #expect(QueryEncoding.encode(.query(pairs, arrays: .brackets)) == "page=2&tag%5B%5D=swift&tag%5B%5D=http&on=true")
        #expect(QueryEncoding.encode(.query(pairs, arrays: .commaSeparated)) == "page=2&tag=swift%2Chttp&on=true")
    }

    @Test("form bodies use + for spaces and encode reserved characters")
    func form() {
        #expect(FormEncoding.encode([("name", "Ada Lovelace"), ("q", "a+b&c=d/é")]) == "name=Ada+Lovelace&q=a%2Bb%26c%3Dd%2F%C3%A9")
    }
}
