import Courier
import Foundation
import HTTPTypes
import Testing

@Suite("CacheFreshness")
struct CacheFreshnessTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func entry(_ fields: [(HTTPField.Name, String)], status: Int = 200, requestDate: Date = t0, responseDate: Date = t0) -> CachedHTTPResponse {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: name, value: value)) }
        return CachedHTTPResponse(key: HTTPCacheKey(namespace: "t", method: "GET", url: "https://x/", credentials: nil),
                                  response: HTTPResponse(status: .init(code: status), headerFields: headerFields),
                                  body: Data(), requestDate: requestDate, responseDate: responseDate)
    }

    static func freshness(_ entry: CachedHTTPResponse, at now: Date, heuristic: TimeInterval = 86_400) -> CacheFreshness {
        CacheFreshness(of: entry, cacheControl: CacheControl(entry.response.headerFields), now: now, maxHeuristicLifetime: heuristic)
    }

    @Test("an IMF-fixdate (read by position) and the same instant in the RFC 850 and asctime shapes (read token by token) give the same date")
    func imfFixdateAgreesWithTheOtherShapes() {
        let rfc850 = DateFormatter()
        rfc850.locale = Locale(identifier: "en_US_POSIX")
        rfc850.timeZone = TimeZone(identifier: "GMT")
        rfc850.dateFormat = "EEEE, dd-MMM-yy HH:mm:ss 'GMT'"
        let asctime = DateFormatter()
        asctime.locale = Locale(identifier: "en_US_POSIX")
        asctime.timeZone = TimeZone(identifier: "GMT")
        asctime.dateFormat = "EEE MMM d HH:mm:ss yyyy"
        var generator = SystemRandomNumberGenerator()
        // 1970…2069: the years RFC 850's two digits name unambiguously.
        for _ in 0..<500 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0..<3_155_760_000, using: &generator)))
            #expect(CacheFreshness.httpDate(Self.httpDate(date)) == date, "\(Self.httpDate(date))")
            #expect(CacheFreshness.httpDate(rfc850.string(from: date)) == date, "\(rfc850.string(from: date))")
            #expect(CacheFreshness.httpDate(asctime.string(from: date)) == date, "\(asctime.string(from: date))")
        }
        #expect(CacheFreshness.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(CacheFreshness.httpDate("sun, 06 nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(CacheFreshness.httpDate("Thu, 29 Feb 2024 23:59:59 GMT") == Date(timeIntervalSince1970: 1_709_251_199))
        // The fixed shape with an impossible value is refused, as the token-by-token reading refuses it.
        for invalid in ["Fri, 30 Feb 2024 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Nov 1994 08:60:37 GMT",
                        "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1600 08:49:37 GMT", "Sun, 06 Nvv 1994 08:49:37 GMT"] {
            #expect(CacheFreshness.httpDate(invalid) == nil, "\(invalid)")
        }
        // Twenty-nine bytes that are not the fixed shape are read token by token.
        #expect(CacheFreshness.httpDate("Sun, 06 Nov 1994 08:49:37 UTC") == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test("max-age wins over Expires; age grows with resident time")
    func maxAge() {
        let entry = Self.entry([(.cacheControl, "max-age=60"), (.expires, Self.httpDate(Self.t0.addingTimeInterval(3600))), (.date, Self.httpDate(Self.t0))])
        #expect(Self.freshness(entry, at: Self.t0.addingTimeInterval(59)).isFresh)
        #expect(!Self.freshness(entry, at: Self.t0.addingTimeInterval(61)).isFresh)
        #expect(Self.freshness(entry, at: Self.t0.addingTimeInterval(61)).lifetime == 60)
    }

    @Test("Expires − Date; an invalid Expires is already expired")
    func expires() {
        let good = Self.entry([(.expires, Self.httpDate(Self.t0.addingTimeInterval(100))), (.date, Self.httpDate(Self.t0))])
        #expect(Self.freshness(good, at: Self.t0).lifetime == 100)
        let bad = Self.entry([(.expires, "0"), (.date, Self.httpDate(Self.t0))])
        #expect(Self.freshness(bad, at: Self.t0).lifetime == 0)
        #expect(!Self.freshness(bad, at: Self.t0).isFresh)
    }

    @Test("Age from an upstream cache and a Date in the past count toward the age (RFC 9111 §4.2.3)")
    func age() {
        let withAge = Self.entry([(.cacheControl, "max-age=100"), (.age, "90"), (.date, Self.httpDate(Self.t0))])
        #expect(Self.freshness(withAge, at: Self.t0.addingTimeInterval(5)).age == 95)
        #expect(Self.freshness(withAge, at: Self.t0.addingTimeInterval(11)).isFresh == false)
        let oldDate = Self.entry([(.cacheControl, "max-age=100"), (.date, Self.httpDate(Self.t0.addingTimeInterval(-150)))])
        #expect(!Self.freshness(oldDate, at: Self.t0).isFresh)
        let slow = Self.entry([(.cacheControl, "max-age=10")], requestDate: Self.t0, responseDate: Self.t0.addingTimeInterval(20))
        #expect(!Self.freshness(slow, at: Self.t0.addingTimeInterval(20)).isFresh)
    }

    @Test("a huge or hostile Age never underflows or crashes", arguments: ["99999999999999999999", "-5", "abc", ""])
    func hostileAge(value: String) {
        let entry = Self.entry([(.cacheControl, "max-age=100"), (.age, value)])
        _ = Self.freshness(entry, at: Self.t0)
    }

    @Test("heuristic freshness: 10 % of the time since Last-Modified, capped, only for heuristically cacheable statuses")
    func heuristic() {
        let fields: [(HTTPField.Name, String)] = [(.lastModified, Self.httpDate(Self.t0.addingTimeInterval(-1000))), (.date, Self.httpDate(Self.t0))]
        let ok = Self.freshness(Self.entry(fields), at: Self.t0)
        #expect(ok.lifetime == 100)
        #expect(ok.isHeuristic)
        #expect(Self.freshness(Self.entry(fields), at: Self.t0, heuristic: 30).lifetime == 30)
        #expect(Self.freshness(Self.entry(fields), at: Self.t0, heuristic: 0).lifetime == 0)
        #expect(Self.freshness(Self.entry(fields, status: 500), at: Self.t0).lifetime == 0)
        let years = [(HTTPField.Name.lastModified, Self.httpDate(Self.t0.addingTimeInterval(-10 * 365 * 86_400)))]
        #expect(Self.freshness(Self.entry(years), at: Self.t0).lifetime == 86_400)
    }

    @Test("invalid max-age makes the response stale even with a future Expires")
    func invalidMaxAge() {
        let entry = Self.entry([(.cacheControl, "max-age=-1"), (.expires, Self.httpDate(Self.t0.addingTimeInterval(3600)))])
        #expect(!Self.freshness(entry, at: Self.t0).isFresh)
    }
}
