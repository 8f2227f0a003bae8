@testable import Courier
import Testing

@Suite("HTTPParameters: the one reader of HTTP's name=value lists")
struct HTTPParametersTests {
    private func items(_ text: String, _ separator: Unicode.Scalar, quoting: HTTPParameters.Quoting = .quotedStrings) -> [String] {
        HTTPParameters(text, separator: separator, quoting: quoting).map { item in
            item.value.map { "\(item.name)=\($0)" } ?? String(item.name)
        }
    }

    private func first(_ text: String) -> HTTPParameters.Item? {
        var reader = HTTPParameters(text, separator: ",")
        return reader.next()
    }

    @Test("names and values are trimmed of spaces and tabs; empty items are skipped")
    func trimmingAndEmptyItems() {
        #expect(items(" no-cache ,\tmax-age = 60 ,, ,private", ",") == ["no-cache", "max-age=60", "private"])
        #expect(items("", ",").isEmpty)
        #expect(items(" ; ;", ";").isEmpty)
    }

    @Test("a quoted string keeps its separators, and comes without quotes and escapes")
    func quotedStrings() {
        #expect(items(#"a="x, y", b=2"#, ",") == ["a=x, y", "b=2"])
        #expect(items(#"title="a \"quoted\" \\ word"; rel=next"#, ";") == [#"title=a "quoted" \ word"#, "rel=next"])
        let item = first(#"max-age="60""#)
        #expect(item?.value == "60")
        #expect(item?.valueWasQuoted == true)
    }

    @Test("an unterminated quoted string runs to the end of the text, never past it")
    func unterminatedQuote() {
        #expect(items(#"a="open, b=2"#, ",") == ["a=open, b=2"])
        #expect(items(#"a="open\"#, ",") == ["a=open"])
    }

    @Test("without quoting (Set-Cookie), every separator splits and quotes stay in the value")
    func noQuoting() {
        #expect(items(#"Path="/a;b"; Secure"#, ";", quoting: .none) == [#"Path="/a"#, #"b""#, "Secure"])
        #expect(items(#"id="x y""#, ";", quoting: .none) == [#"id="x y""#])
    }

    @Test("a terminator outside quotes ends the list and says where it stopped")
    func terminator() {
        let text = #"; rel="next, last"; title=a, <https://x>; rel=prev"#
        var reader = HTTPParameters(text, separator: ";", terminator: ",")
        var read: [String] = []
        while let item = reader.next() { read.append("\(item.name)=\(item.value ?? "")") }
        #expect(read == ["rel=next, last", "title=a"])
        let stop = try! #require(reader.terminatorIndex)
        #expect(text[stop...].hasPrefix(", <https://x>"))
    }

    @Test("the first `=` splits name from value; later ones belong to the value")
    func firstEqualsSplits() {
        #expect(items("a=b=c; =d; e=", ";") == ["a=b=c", "=d", "e="])
    }

    @Test("names compare ASCII case-insensitively without lowercasing them")
    func nameComparison() {
        let item = first("Max-AGE=5")!
        #expect(item.nameIs("max-age"))
        #expect(!item.nameIs("max-ag"))
        #expect(first("K=1")!.nameIs("k"))              // ASCII K is k
        #expect(!first("\u{212A}=1")!.nameIs("k"))      // the Kelvin sign is not
    }

    @Test("each field's reader goes through it: Cache-Control, media types, Link and Set-Cookie read quotes the same way")
    func usersShareTheGrammar() {
        #expect(CacheControl(#"max-age="60", private"#).maxAge == 60)
        #expect(CacheControl(#"no-cache="set-cookie, x", max-age=5"#).maxAge == 5)   // the comma in quotes is not a split
        #expect(MediaType(#"multipart/form-data; boundary="a;b""#)?.parameters["boundary"] == "a;b")
        #expect(WebLink.parse(#"<https://x/2>; rel="next"; title="a, b", <https://x/9>; rel=last"#).map(\.relations) == [["next"], ["last"]])
        #expect(SetCookieParser.parse(#"id="a;b"; Path=/"#)?.value == #""a"#)   // RFC 6265: `;` always splits
    }
}
