@testable import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// `HTTPFields` traps on its 65,535th field: Courier's appends stop short of it, and
/// ``HTTPFields/replace(with:)`` does what it did before, in one pass however many fields.
@Suite("HTTPFields: appends never trap, replacements are linear")
struct HTTPFieldsCapacityTests {
    /// `count` fields named `X-F-0`… (`distinct`) or all `X-F` (not).
    static func fields(_ count: Int, distinct: Bool = true) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(count)
        let shared = HTTPField.Name("X-F")!
        for index in 0..<count {
            fields.append(HTTPField(name: distinct ? HTTPField.Name("X-F-\(index)")! : shared, value: "v"))
        }
        return fields
    }

    /// What `replace(with:)` promises, written the slow and obvious way.
    static func reference(_ fields: HTTPFields, _ replacements: [HTTPField]) -> [HTTPField] {
        var result = Array(fields)
        for (offset, replacement) in replacements.enumerated() {
            let repeated = replacements[..<offset].contains { $0.name == replacement.name }
            guard !repeated, let first = result.firstIndex(where: { $0.name == replacement.name }) else {
                result.append(replacement)
                continue
            }
            result[first] = replacement
            var position = first + 1
            while position < result.count {
                if result[position].name == replacement.name { result.remove(at: position) } else { position += 1 }
            }
        }
        return result
    }

    @Test("replace(with:) gives what the field-by-field definition gives, for few and many replacements", arguments: [1, 2, 3, 9, 40])
    func sameAsTheDefinition(_ replacementCount: Int) {
        var generator = SplitMix64(seed: UInt64(replacementCount))
        let names = ["A", "B", "C", "Age", "Courier-Cache", "ETag", "Set-Cookie", "D"].map { HTTPField.Name($0)! }
        for round in 0..<200 {
            var fields = HTTPFields()
            for index in 0..<Int.random(in: 0...12, using: &generator) {
                fields.append(HTTPField(name: names.randomElement(using: &generator)!, value: "old\(index)"))
            }
            let replacements = (0..<replacementCount).map { index in
                HTTPField(name: names.randomElement(using: &generator)!, value: "new\(index)")
            }
            var replaced = fields
            replaced.replace(with: replacements)
            #expect(Array(replaced) == Self.reference(fields, replacements), "round \(round): \(fields) ← \(replacements)")
        }
    }

    @Test("a replacement on a head at HTTPFields' capacity keeps the head and does not trap")
    func replaceAtCapacity() async {
        await #expect(processExitsWith: .success) {
            var full = HTTPFieldsCapacityTests.fields(HTTPFields.capacity)
            full.replace(with: [HTTPField(name: .age, value: "1"), HTTPField(name: HTTPField.Name("Courier-Cache")!, value: "hit")])
            full.replace(.eTag, with: "\"x\"")
            full.replace(with: HTTPField(name: .date, value: "now"))
            guard full.count == HTTPFields.capacity, !full.appendIfRoom(HTTPField(name: .vary, value: "*")) else { exit(1) }
        }
    }

    @Test("a hostile head of 65,534 same-named fields is replaced in one pass", .timeLimit(.minutes(1)))
    func manyDuplicatesAreRemovedInOnePass() {
        // Field by field this was ≈ 2·10⁹ element moves; the time limit only catches a hang.
        var head = Self.fields(HTTPFields.capacity, distinct: false)
        head.replace(HTTPField.Name("X-F")!, with: "one")
        #expect(Array(head) == [HTTPField(name: HTTPField.Name("X-F")!, value: "one")])
        var many = Self.fields(HTTPFields.capacity, distinct: false)
        many.replace(with: (0..<20).map { HTTPField(name: $0 == 0 ? HTTPField.Name("X-F")! : HTTPField.Name("X-G-\($0)")!, value: "\($0)") })
        #expect(many.count == 20)
    }
}
