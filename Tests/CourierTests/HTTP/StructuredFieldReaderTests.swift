@testable import Courier
import Testing

@Suite("Structured field values (RFC 9651): the Items and Dictionaries Courier reads")
struct StructuredFieldReaderTests {
    @Test("Integers, Booleans and parameters; every other bare type read as .other")
    func items() {
        #expect(StructuredFieldReader.item("42") == .integer(42))
        #expect(StructuredFieldReader.item("  0") == .integer(0))
        #expect(StructuredFieldReader.item("-7") == .integer(-7))
        #expect(StructuredFieldReader.item("999999999999999") == .integer(999_999_999_999_999))
        #expect(StructuredFieldReader.item("?1") == .boolean(true))
        #expect(StructuredFieldReader.item("?0;a=1;b") == .boolean(false))
        #expect(StructuredFieldReader.item("12;unit=\"bytes\"") == .integer(12))
        for other in ["1.5", "\"text\"", "token/x:y", ":AAEC:", "@1659578233", "%\"caf%c3%a9\""] {
            #expect(StructuredFieldReader.item(other) == .other, "\(other)")
        }
    }

    @Test("whatever does not parse is ignored whole (nil)")
    func malformed() {
        for bad in ["", "1000000000000000", "12 13", "?2", "?", "1.", "1.2345", "--1", "\"open", "12,", "0x10", "+5", "1e3"] {
            #expect(StructuredFieldReader.item(bad) == nil, "\(bad)")
        }
        for bad in ["Max-Size=1", "a=1,", "a=1,,b=2", "a=(1 2", "a=?3", "=1", "a=1;", "a=1 b=2"] {
            #expect(StructuredFieldReader.dictionary(bad) == nil, "\(bad)")
        }
    }

    @Test("Dictionaries: members in order, bare keys true, inner lists and parameters skipped, the last of a repeated key kept")
    func dictionaries() throws {
        let members = try #require(StructuredFieldReader.dictionary("max-size=100, flag, list=(1 2);p=3, max-size=7;x=\"y\",\tname=tok"))
        #expect(members.map(\.key) == ["max-size", "flag", "list", "name"])
        #expect(members.map(\.value) == [.integer(7), .boolean(true), .other, .other])
        #expect(StructuredFieldReader.dictionary("")?.isEmpty == true)
    }
}
