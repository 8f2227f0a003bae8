@testable import Courier
import Foundation
import Testing
import CourierTesting

@Suite("Cookie jar: bounds against hostile servers")
struct CookieLimitsTests {
    @Test("a site cannot hold more than 180 cookies: the least recently used go first")
    func perSite() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: clock)
        for index in 0..<500 {
            clock.advance(by: 1)
            jar.receive(["c\(index)=1; Domain=example.com"], from: "https://s\(index % 7).example.com/")
        }
        #expect(jar.cookies.count == 180)
        #expect(!jar.cookies.contains { $0.name == "c0" })
        #expect(jar.cookies.contains { $0.name == "c499" })
    }

    @Test("a recently sent cookie survives eviction")
    func lruKeepsUsed() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(limits: .init(maxCookiesPerSite: 3), clock: clock)
        jar.receive(["keep=1"], from: "https://example.com/")
        for index in 0..<10 {
            clock.advance(by: 1)
            _ = jar.header(for: "https://example.com/")   // sends (touches) every cookie
            clock.advance(by: 1)
            jar.receive(["n\(index)=1; Path=/x"], from: "https://example.com/")
        }
        #expect(jar.cookies.contains { $0.name == "keep" })
        #expect(jar.cookies.count == 3)
    }

    @Test("thousands of cookies across sites stay within the total limit")
    func total() {
        let jar = CookieJar(limits: .init(maxCookies: 1000))
        for site in 0..<100 {
            jar.receive((0..<50).map { "c\($0)=v" }, from: "https://site\(site).example/")
        }
        #expect(jar.cookies.count == 1000)
    }

    @Test("one response with 10,000 Set-Cookie headers stays bounded")
    func oneHugeResponse() {
        let jar = CookieJar()
        let lines = (0..<10_000).map { "c\($0)=" + String(repeating: "v", count: 100) }
        jar.receive(lines, from: "https://example.com/")
        #expect(jar.cookies.count == 180)
    }

    @Test("huge values and hostile headers are refused or cut, never crash", arguments: [
        "a=" + String(repeating: "x", count: 5000),
        String(repeating: ";", count: 100_000),
        String(repeating: "=", count: 100_000),
        "a=1; Expires=" + String(repeating: "9", count: 100_000),
        "a=1; Domain=" + String(repeating: "a.", count: 600) + "example.com",
        "a=1; Path=/" + String(repeating: "%", count: 50_000),
        "\u{0}=\u{0}", "a=1; Max-Age=\u{0}", "a=1; Domain=\u{FFFF}", "a=1; SameSite=" + String(repeating: "x", count: 10_000),
    ])
    func hostile(_ line: String) {
        let jar = CookieJar()
        jar.receive([line], from: "https://example.com/")
        for cookie in jar.cookies {
            #expect(cookie.name.utf8.count + cookie.value.utf8.count <= 4096)
            #expect(cookie.path.utf8.count <= 1025)
        }
    }

    @Test("a custom per-cookie size limit applies")
    func customSize() {
        let jar = CookieJar(limits: .init(maxCookieBytes: 10))
        #expect(jar.receive(["a=1234567890"], from: "https://example.com/") == 0)   // 11 bytes
        #expect(jar.receive(["a=123456789"], from: "https://example.com/") == 1)    // 10 bytes
    }
}
