@testable import Courier
import Testing

@Suite("Content-Range parsing (RFC 9110 §14.4)")
struct ContentRangeTests {
    @Test("a satisfied range, with a known or an unknown length")
    func satisfied() {
        #expect(ContentRange("bytes 100-199/1000") == ContentRange(first: 100, last: 199, completeLength: 1000))
        #expect(ContentRange("bytes 0-0/1")?.count == 1)
        #expect(ContentRange("BYTES 5-9/*") == ContentRange(first: 5, last: 9, completeLength: nil))
    }

    @Test("an unsatisfied range (a 416's) names the length only")
    func unsatisfied() {
        #expect(ContentRange("bytes */1000") == ContentRange(first: nil, last: nil, completeLength: 1000))
        #expect(ContentRange("bytes */*") == nil)
    }

    @Test("values a hostile server may send are no range, never a crash or an overflow", arguments: [
        "", "bytes", "bytes ", "bytes 1-2", "bytes 2-1/10", "bytes 0-10/10", "bytes -1-5/10", "bytes +1-5/10",
        "bytes 1 -5/10", "bytes  1-5/10", "bytes 1-5/ 10", "items 1-5/10", "bytes 1-5/10/11", "bytes 1--5/10",
        "bytes 0-9223372036854775806/9223372036854775807", "bytes 0-99999999999999999999/100000000000000000000",
        "bytes 1-5/1x", "bytes ١-٥/١٠", "bytes 1-5,7-9/10",
    ])
    func refused(_ value: String) {
        #expect(ContentRange(value) == nil)
    }

    @Test("the largest values that fit 18 digits are read")
    func large() {
        #expect(ContentRange("bytes 0-999999999999999998/999999999999999999")?.completeLength == 999_999_999_999_999_999)
    }
}
