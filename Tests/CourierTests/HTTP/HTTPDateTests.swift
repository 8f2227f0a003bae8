@testable import Courier
import Foundation
import Testing

@Suite("HTTP dates: IMF-fixdate fast, RFC 6265 §5.1.1 for the rest")
struct HTTPDateTests {
    private let october21 = Date(timeIntervalSince1970: 1_445_412_480)   // 2015-10-21 07:28:00 UTC

    @Test("the shapes servers send", arguments: [
        "Wed, 21 Oct 2015 07:28:00 GMT", "Wednesday, 21-Oct-15 07:28:00 GMT", "Wed Oct 21 07:28:00 2015",
        "21 october 2015 07:28:00", "2015 Oct 21 7:28:0", "Wed, 21-OCT-2015 07:28:00 UTC",
    ])
    func shapes(_ text: String) {
        #expect(HTTPDate.parse(Substring(text)) == october21)
    }

    @Test("two-digit years: 70–99 are 19xx, 00–69 are 20xx")
    func twoDigitYears() {
        #expect(HTTPDate.parse("1 Jan 70 00:00:00") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("1 Jan 69 00:00:00") == Date(timeIntervalSince1970: 3_124_224_000))
    }

    @Test("dates that fail to parse", arguments: [
        "", "tomorrow", "Wed, 21 Oct 2015", "21 Oct 2015 25:00:00", "31 Feb 2015 00:00:00", "21 Oct 1600 00:00:00",
        "0 Oct 2015 00:00:00", "21 Foo 2015 00:00:00", "21 Oct 20155 00:00:00", "21 Oct 2015 07:60:00",
    ])
    func failures(_ text: String) {
        #expect(HTTPDate.parse(Substring(text)) == nil)
    }

    @Test("leap days")
    func leapDays() {
        #expect(HTTPDate.parse("29 Feb 2024 00:00:00") != nil)
        #expect(HTTPDate.parse("29 Feb 2023 00:00:00") == nil)
        #expect(HTTPDate.parse("29 Feb 2000 00:00:00") != nil)
        #expect(HTTPDate.parse("29 Feb 2100 00:00:00") == nil)
    }

    @Test("the cache's fields read the same dates: IMF-fixdate, RFC 850 and asctime (RFC 9110 §5.6.7)")
    func cacheFields() {
        let imf = HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(imf == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == imf)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == imf)
    }
}
