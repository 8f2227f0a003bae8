@testable import Courier
import Testing

@Suite("String.trimmingSpacesAndTabs")
struct StringWhitespaceTests {
    @Test("spaces and tabs go from both ends; what is between them stays", arguments: [
        ("  W/\"abc\" \t", "W/\"abc\""),
        ("\t\tgzip", "gzip"),
        ("accept-language  ", "accept-language"),
        ("a b\tc", "a b\tc"),
        ("", ""),
        (" \t \t", ""),
        (" é ", "é"),
        (" e\u{301}\t", "e\u{301}"),
        (" 日本 ", "日本"),
    ])
    func trims(input: String, expected: String) {
        #expect(String(input.trimmingSpacesAndTabs()) == expected)
    }

    @Test("other whitespace is not HTTP's: a no-break space or a line break stays")
    func keepsOtherWhitespace() {
        #expect(String("\u{A0}x\u{A0}".trimmingSpacesAndTabs()) == "\u{A0}x\u{A0}")
        #expect(String(" x\n ".trimmingSpacesAndTabs()) == "x\n")
    }

    @Test("a slice of a longer text is trimmed within its own bounds")
    func slice() {
        let text = "Vary: Accept ,  Accept-Language"
        let parts = text.dropFirst(6).split(separator: ",").map { String($0.trimmingSpacesAndTabs()) }
        #expect(parts == ["Accept", "Accept-Language"])
    }
}
