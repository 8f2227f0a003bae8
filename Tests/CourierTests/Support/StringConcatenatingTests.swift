@testable import Courier
import Foundation
import Testing

@Suite("String(concatenating:)")
struct StringConcatenatingTests {
    @Test("joins parts of every size, as + would")
    func joinsParts() {
        let long = String(repeating: "long part ", count: 10)
        let cases: [[String]] = [[], [""], ["a"], ["", "b", ""], ["GET", " ", long, " → ", "200"], ["é", "😀", "ü"], [long, long]]
        for parts in cases {
            let joined = String(concatenating: parts)
            #expect(joined == parts.reduce("", +))
            #expect(joined.utf8.count == parts.reduce(0) { $0 + $1.utf8.count })
        }
    }

    @Test("copies substrings turned to strings and strings without contiguous UTF-8")
    func copiesOtherStorage() {
        let base = "https://api.example.com/v1/users?page=2"
        let slice = String(base.dropFirst(8))
        // On Apple platforms this string stays bridged and takes the byte-by-byte path; Linux's
        // Foundation makes it a native string, so there the test checks the result only.
        let bridged = String(NSString(string: "naïve ☕️ text"))
        #expect(String(concatenating: [slice, " | ", bridged]) == slice + " | " + bridged)
    }
}
