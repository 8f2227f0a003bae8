import Courier
import HTTPTypes
import Testing

/// The hand-written lookups must answer exactly what `HTTPFields`' own subscripts answer.
@Suite("HTTPFields lookups") struct HTTPFieldsLookupTests {
    let fields: HTTPFields = [
        .contentType: "application/json", .cacheControl: "max-age=60", .eTag: "\"v1\"", .cacheControl: "private",
    ]

    @Test func valueJoinsRepeatedFieldsAsTheSubscriptDoes() {
        #expect(fields.value(of: .cacheControl) == "max-age=60, private")
        #expect(fields.value(of: .cacheControl) == fields[.cacheControl])
        #expect(fields.value(of: .eTag) == fields[.eTag])
        #expect(fields.value(of: .age) == nil)
        #expect(fields.count(of: .cacheControl) == 2)
        #expect(fields.count(of: .age) == 0)
        #expect(fields.has(.eTag))
        #expect(!fields.has(.lastModified))
    }

    @Test func replacingANameKeepsOneFieldWithTheNewValue() {
        var replaced = fields
        replaced.replace(.cacheControl, with: "no-cache")
        #expect(replaced[values: .cacheControl] == ["no-cache"])
        #expect(replaced.count == 3)
        #expect(replaced[.contentType] == "application/json" && replaced[.eTag] == "\"v1\"")

        var added = fields
        added.replace(.age, with: "5")
        #expect(added[.age] == "5")
        #expect(added.count == fields.count + 1)
    }

    @Test func replacementsOfOneNameAreAllKept() {
        var merged = fields
        merged.replace(with: [
            HTTPField(name: .cacheControl, value: "max-age=10"), HTTPField(name: .cacheControl, value: "must-revalidate"),
            HTTPField(name: .date, value: "Tue, 24 Nov 2026 22:00:00 GMT"),
        ])
        #expect(merged[values: .cacheControl] == ["max-age=10", "must-revalidate"])
        #expect(merged[.date] == "Tue, 24 Nov 2026 22:00:00 GMT")
        #expect(merged[.eTag] == "\"v1\"" && merged[.contentType] == "application/json")
        #expect(merged.count == 5)
    }
}
