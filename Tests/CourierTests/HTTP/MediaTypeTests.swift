import Courier
import Foundation
import Testing

@Suite("MediaType: one value to parse, match and guess")
struct MediaTypeTests {
    @Test("parsing lowercases type, subtype and parameters and drops quotes")
    func parsing() throws {
        let type = try #require(MediaType(#"Text/HTML; Charset="UTF-8"; q=0.9"#))
        #expect(type.essence == "text/html")
        #expect(type.parameters == ["charset": "utf-8", "q": "0.9"])
        #expect(type.description == "text/html; charset=utf-8; q=0.9")
        for text in ["json", "", "a/b/c", "/json", "text/"] { #expect(MediaType(text) == nil, "\(text)") }
    }

    @Test("spaces and tabs around the parts are optional whitespace; a space inside the type is not")
    func optionalWhitespace() throws {
        let type = try #require(MediaType(" \tapplication/json \t;\tcharset = \"\"utf-8\"\" ; q=1 "))
        #expect(type.essence == "application/json")
        #expect(type.parameters == ["charset": "utf-8", "q": "1"])
        #expect(MediaType("application/ json") == nil)
        // Only HTTP's whitespace is trimmed: a no-break space is part of the (then unmatched) type.
        #expect(MediaType("\u{00A0}application/json")?.matches(.json) != true)
    }

    @Test("matching: wildcards, and only the parameters the pattern names", arguments: [
        ("application/json; charset=utf-8", "application/json", true),
        ("application/json", "application/*", true),
        ("application/json", "*/*", true),
        ("application/json", "text/*", false),
        ("text/plain; charset=latin1", "text/plain; charset=utf-8", false),
        ("text/plain; charset=UTF-8", "text/plain; charset=utf-8", true),
        ("text/plain", "text/plain; charset=utf-8", false),
    ])
    func matching(received: String, pattern: String, matches: Bool) throws {
        let received = try #require(MediaType(received))
        #expect(received.matches(try #require(MediaType(pattern))) == matches)
        // ValidationMiddleware uses the same rule.
        #expect(ValidationMiddleware.matches(received.description, pattern) == matches)
    }

    @Test("guessing from a file name, then from the first bytes")
    func guessing() {
        #expect(MediaType.infer(fileName: "a.PDF").description == "application/pdf")
        #expect(MediaType.infer(fileName: nil, data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])).description == "image/png")
        #expect(MediaType.infer(fileName: "blob", data: Data([0x00, 0xFF])) == .octetStream)
    }
}
