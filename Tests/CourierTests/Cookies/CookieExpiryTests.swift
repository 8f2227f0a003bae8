@testable import Courier
import Foundation
import Testing
import CourierTesting

@Suite("Cookie jar: Expires and Max-Age")
struct CookieExpiryTests {
    private let url = "https://example.com/"

    @Test("Max-Age counts from now and the cookie stops being sent when it passes")
    func maxAge() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: clock)
        jar.receive(["a=1; Max-Age=60"], from: url)
        clock.advance(by: 59)
        #expect(jar.header(for: url) == "a=1")
        clock.advance(by: 1)
        #expect(jar.header(for: url) == nil)
        #expect(jar.cookies.isEmpty)
    }

    @Test("Max-Age wins over Expires, whatever their order")
    func maxAgeWins() throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: clock)
        jar.receive(["a=1; Max-Age=10; Expires=Fri, 01 Jan 2100 00:00:00 GMT"], from: url)
        jar.receive(["b=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT; Max-Age=10"], from: url)
        for cookie in jar.cookies {
            #expect(cookie.expiresAt == clock.now().addingTimeInterval(10))
        }
    }

    @Test("Expires in the future is kept; in the past the cookie is not stored")
    func expires() throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_445_000_000))
        let jar = CookieJar(clock: clock)
        jar.receive(["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], from: url)
        #expect(try #require(jar.cookies.first).expiresAt == Date(timeIntervalSince1970: 1_445_412_480))
        jar.receive(["b=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], from: url)
        #expect(jar.cookies.map(\.name) == ["a"])
    }

    @Test("Max-Age zero or negative removes the stored cookie (the logout idiom)", arguments: ["0", "-1", "-99999999999999999999999"])
    func removal(_ maxAge: String) {
        let jar = CookieJar()
        jar.receive(["a=1; Path=/"], from: url)
        #expect(jar.receive(["a=gone; Path=/; Max-Age=\(maxAge)"], from: url) == 1)
        #expect(jar.cookies.isEmpty)
    }

    @Test("huge Max-Age and far Expires are cut to 400 days, with no overflow")
    func capped() throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: clock)
        jar.receive(["a=1; Max-Age=99999999999999999999999999", "b=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT", "c=1; Max-Age=9223372036854775807"], from: url)
        let limit = clock.now().addingTimeInterval(400 * 86_400)
        #expect(jar.cookies.count == 3)
        for cookie in jar.cookies { #expect(cookie.expiresAt == limit) }
    }

    @Test("a session cookie has no expiry and lives as long as the jar")
    func session() throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: clock)
        jar.receive(["a=1"], from: url)
        clock.advance(by: 10 * 365 * 86_400)
        #expect(try #require(jar.cookies.first).isSessionCookie)
        #expect(jar.header(for: url) == "a=1")
    }
}
