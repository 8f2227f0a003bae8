import Courier
import HTTPTypes
import Testing

@Suite("CacheControl")
struct CacheControlTests {
    @Test("directives are read case-insensitively, with quoted and unquoted values")
    func directives() {
        let control = CacheControl("Max-Age=60, NO-CACHE, private=\"Set-Cookie, X-Thing\", must-revalidate, stale-while-revalidate=\"30\"")
        #expect(control.maxAge == 60)
        #expect(control.noCache)
        #expect(control.isPrivate)
        #expect(control.mustRevalidate)
        #expect(control.staleWhileRevalidate == 30)
        #expect(!control.noStore)
    }

    @Test("every Cache-Control field of a message counts")
    func severalFields() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .cacheControl, value: "max-age=10"))
        fields.append(HTTPField(name: .cacheControl, value: "no-store"))
        let control = CacheControl(fields)
        #expect(control.maxAge == 10)
        #expect(control.noStore)
    }

    @Test("hostile max-age values never make a response fresher", arguments: [
        ("max-age=-1", nil as Int?, true),
        ("max-age=abc", nil, true),
        ("max-age=", nil, true),
        ("max-age", nil, true),
        ("max-age=1e9", nil, true),
        ("max-age=10, max-age=20", nil, true),
        ("max-age=10, max-age=10", 10, false),
        ("max-age=99999999999999999999999999999", CacheControl.largestDeltaSeconds, false),
        ("max-age=2147483648", CacheControl.largestDeltaSeconds, false),
        ("max-age=007", 7, false),
        (",,, max-age=5 ,,", 5, false),
        (";;; max-age=5", nil, false),
    ])
    func hostileMaxAge(value: String, expected: Int?, invalid: Bool) {
        let control = CacheControl(value)
        #expect(control.maxAge == expected)
        #expect(control.maxAgeIsInvalid == invalid)
    }

    @Test("malformed fields parse without crashing", arguments: [
        "", ",", "=", "==", "\"", "\"unterminated, max-age=5", "max-age=\"5", String(repeating: "no-cache,", count: 10_000),
        String(repeating: "a", count: 100_000), "max-stale", "max-stale=x", "min-fresh=-3",
    ])
    func malformed(value: String) {
        _ = CacheControl(value)
    }

    @Test("spaces, tabs, quotes and commas inside quotes; unknown and non-ASCII names match nothing", arguments: [
        ("\tmax-age = 30 ,\tno-store\t", 30, true),
        ("private=\"a, max-age=99\", max-age=5", 5, false),
        ("max-age=\"42\"", 42, false),
        ("ma\u{212A}-age=5, no-stor\u{E9}", nil, false),
        ("MAX-AGE=8, x-max-age=9, max-ages=10", 8, false),
        ("\"max-age=5\"", nil, false),
    ] as [(String, Int?, Bool)])
    func lexical(value: String, maxAge: Int?, noStore: Bool) {
        let control = CacheControl(value)
        #expect(control.maxAge == maxAge)
        #expect(control.noStore == noStore)
    }

    @Test("request directives: max-stale without a value accepts any staleness; only-if-cached; min-fresh")
    func requestDirectives() {
        #expect(CacheControl("max-stale").maxStale == Int.max)
        #expect(CacheControl("max-stale=30").maxStale == 30)
        #expect(CacheControl("only-if-cached").onlyIfCached)
        #expect(CacheControl("min-fresh=5").minFresh == 5)
        #expect(CacheControl("max-age=0").maxAge == 0)
    }
}
