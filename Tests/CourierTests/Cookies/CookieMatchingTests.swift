@testable import Courier
import Foundation
import Testing
import CourierTesting

@Suite("Cookie jar: domain, path and Secure (RFC 6265 §5.1.3, §5.1.4, §5.4)")
struct CookieMatchingTests {
    @Test("a cookie without Domain is host-only: not sent to subdomains or the parent")
    func hostOnly() {
        let jar = CookieJar()
        jar.receive(["a=1"], from: "https://api.example.com/")
        #expect(jar.header(for: "https://api.example.com/x") == "a=1")
        #expect(jar.header(for: "https://v2.api.example.com/") == nil)
        #expect(jar.header(for: "https://example.com/") == nil)
        #expect(jar.cookies.first?.isHostOnly == true)
    }

    @Test("Domain makes a domain cookie: sent to the domain and its subdomains, not to look-alikes")
    func domainCookie() {
        let jar = CookieJar()
        jar.receive(["a=1; Domain=example.com"], from: "https://api.example.com/")
        #expect(jar.header(for: "https://example.com/") == "a=1")
        #expect(jar.header(for: "https://deep.api.example.com/") == "a=1")
        #expect(jar.header(for: "https://myexample.com/") == nil)
        #expect(jar.header(for: "https://example.com.evil.example/") == nil)
    }

    @Test("Domain equal to the host gives a domain cookie for the host and its subdomains")
    func domainEqualToHost() {
        let jar = CookieJar()
        jar.receive(["a=1; Domain=api.example.com"], from: "https://api.example.com/")
        #expect(jar.header(for: "https://v2.api.example.com/") == "a=1")
        #expect(jar.cookies.first?.isHostOnly == false)
    }

    @Test("a Domain the host is not in is refused", arguments: ["other.example", "evil.example.com", "ample.com", "api.example.com.evil"])
    func foreignDomain(_ domain: String) {
        let jar = CookieJar()
        #expect(jar.receive(["a=1; Domain=\(domain)"], from: "https://api.example.com/") == 0)
        #expect(jar.cookies.isEmpty)
    }

    @Test("public suffixes are refused as Domain: top-level domains and the embedded multi-label suffixes", arguments: [
        ("https://www.example.com/", "com"), ("https://shop.example.co.uk/", "co.uk"), ("https://a.example.com.au/", "com.au"),
        ("https://me.github.io/", "github.io"), ("https://x.example/", "example"), ("https://a.b.example.co.jp/", ".co.jp"),
    ])
    func publicSuffixRefused(_ url: String, _ domain: String) {
        let jar = CookieJar()
        #expect(jar.receive(["a=1; Domain=\(domain)"], from: url) == 0)
        #expect(jar.cookies.isEmpty)
    }

    @Test("Domain equal to a host that is itself a public suffix becomes host-only (§5.3 step 5)")
    func publicSuffixHost() {
        let jar = CookieJar()
        #expect(jar.receive(["a=1; Domain=localhost"], from: "http://localhost:8080/") == 1)
        #expect(jar.cookies.first?.isHostOnly == true)
        #expect(jar.header(for: "http://sub.localhost:8080/") == nil)
    }

    @Test("a cookie for the registrable domain under a public suffix is accepted")
    func registrableAccepted() {
        let jar = CookieJar()
        #expect(jar.receive(["a=1; Domain=example.co.uk"], from: "https://shop.example.co.uk/") == 1)
        #expect(jar.header(for: "https://www.example.co.uk/") == "a=1")
        #expect(jar.header(for: "https://other.co.uk/") == nil)
    }

    @Test("IP-address hosts get host-only cookies; a Domain naming another address or a suffix is refused")
    func ipHosts() {
        let jar = CookieJar()
        #expect(jar.receive(["a=1; Domain=127.0.0.1"], from: "http://127.0.0.1:9000/") == 1)
        #expect(jar.cookies.first?.isHostOnly == true)
        #expect(jar.receive(["b=1; Domain=0.0.1"], from: "http://127.0.0.1:9000/") == 0)
        #expect(jar.receive(["c=1; Domain=1"], from: "http://127.0.0.1:9000/") == 0)
        #expect(jar.header(for: "http://127.0.0.1:9001/") == "a=1")   // cookies ignore ports (RFC 6265 §8.5)
        #expect(jar.header(for: "http://localhost:9000/") == nil)
        #expect(jar.header(for: "http://127.0.0.2:9000/") == nil)
        jar.receive(["v6=1"], from: "http://[::1]:9000/")
        #expect(jar.header(for: "http://[::1]:9000/") == "v6=1")
        #expect(jar.cookies(for: URL(string: "http://[::1]/")!).first?.domain == "::1")
    }

    @Test("paths: the default path is the request path's directory; a cookie goes to its path and below, not to look-alikes")
    func paths() {
        let jar = CookieJar()
        jar.receive(["d=1"], from: "https://example.com/api/users/7")     // default path /api/users
        jar.receive(["p=1; Path=/api"], from: "https://example.com/")
        jar.receive(["r=1; Path=/"], from: "https://example.com/")
        #expect(jar.header(for: "https://example.com/api/users/8") == "d=1; p=1; r=1")   // longest path first
        #expect(jar.header(for: "https://example.com/api/users") == "d=1; p=1; r=1")
        #expect(jar.header(for: "https://example.com/api/usersX") == "p=1; r=1")
        #expect(jar.header(for: "https://example.com/apix") == "r=1")
        #expect(jar.header(for: "https://example.com/api?q=1") == "p=1; r=1")
        #expect(jar.cookies.first { $0.name == "d" }?.path == "/api/users")
        jar.receive(["top=1"], from: "https://example.com/file")
        #expect(jar.cookies.first { $0.name == "top" }?.path == "/")
    }

    @Test("equal path lengths go oldest first")
    func creationOrder() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: clock)
        jar.receive(["b=1"], from: "https://example.com/")
        clock.advance(by: 1)
        jar.receive(["a=1"], from: "https://example.com/")
        #expect(jar.header(for: "https://example.com/") == "b=1; a=1")
    }

    @Test("Secure cookies go over https only, and http to loopback hosts (documented: browsers count them as secure)")
    func secure() {
        let jar = CookieJar()
        jar.receive(["s=1; Secure", "n=1"], from: "https://example.com/")
        #expect(jar.header(for: "https://example.com/") == "s=1; n=1")
        #expect(jar.header(for: "http://example.com/") == "n=1")
        let local = CookieJar()
        #expect(local.receive(["s=1; Secure"], from: "http://127.0.0.1:8080/") == 1)
        #expect(local.header(for: "http://127.0.0.1:8080/") == "s=1")
    }

    @Test("a Secure cookie set over plain http is refused, and plain http cannot replace a Secure cookie")
    func secureOverHTTP() {
        let jar = CookieJar()
        #expect(jar.receive(["s=1; Secure"], from: "http://example.com/") == 0)
        jar.receive(["s=good; Secure"], from: "https://example.com/")
        #expect(jar.receive(["s=evil"], from: "http://example.com/") == 0)
        #expect(jar.header(for: "https://example.com/") == "s=good")
    }

    @Test("__Secure- and __Host- prefixes are enforced")
    func prefixes() {
        let jar = CookieJar()
        #expect(jar.receive(["__Secure-a=1"], from: "https://example.com/") == 0)
        #expect(jar.receive(["__Secure-a=1; Secure"], from: "https://example.com/") == 1)
        #expect(jar.receive(["__Host-b=1; Secure; Path=/; Domain=example.com"], from: "https://example.com/") == 0)
        #expect(jar.receive(["__Host-b=1; Secure; Path=/api"], from: "https://example.com/") == 0)
        #expect(jar.receive(["__Host-b=1; Secure; Path=/"], from: "https://example.com/") == 1)
    }

    @Test("the prefixes are matched in any case, and __Host- needs Path=/ written out and no Domain (RFC 6265bis §5.7)")
    func prefixesInAnyCaseAndStrictHost() {
        let jar = CookieJar()
        // A server that reads names case-insensitively would take these for its prefixed cookies.
        #expect(jar.receive(["__SECURE-a=1"], from: "http://example.com/") == 0)
        #expect(jar.receive(["__secure-a=1"], from: "https://example.com/") == 0)
        #expect(jar.receive(["__HOST-b=1"], from: "http://example.com/") == 0)
        #expect(jar.receive(["__host-b=1; Secure"], from: "https://example.com/") == 0)
        // The default path of https://example.com/ is "/", but the attribute must be there.
        #expect(jar.receive(["__Host-c=1; Secure"], from: "https://example.com/") == 0)
        // A Domain equal to a host that is a public suffix leaves the cookie host-only; still refused.
        #expect(jar.receive(["__Host-d=1; Secure; Path=/; Domain=github.io"], from: "https://github.io/") == 0)
        #expect(jar.cookies.isEmpty)
        #expect(jar.receive(["__HOST-e=1; Secure; Path=/", "__Secure-f=1; Secure"], from: "https://example.com/") == 2)
    }

    @Test("HttpOnly is stored and sent; SameSite is stored and does not change what is sent")
    func httpOnlyAndSameSite() throws {
        let jar = CookieJar()
        jar.receive(["h=1; HttpOnly; SameSite=Strict"], from: "https://example.com/")
        #expect(jar.header(for: "https://example.com/") == "h=1")
        let cookie = try #require(jar.cookies.first)
        #expect(cookie.isHTTPOnly)
        #expect(cookie.sameSite == .strict)
    }

    @Test("the same name, domain and path replaces the value and keeps the creation time")
    func replacement() throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: clock)
        jar.receive(["a=1"], from: "https://example.com/")
        let created = try #require(jar.cookies.first).createdAt
        clock.advance(by: 10)
        jar.receive(["a=2"], from: "https://example.com/")
        #expect(jar.cookies.count == 1)
        #expect(jar.cookies.first?.value == "2")
        #expect(jar.cookies.first?.createdAt == created)
        jar.receive(["a=3; Path=/api"], from: "https://example.com/")   // another path: another cookie
        #expect(jar.cookies.count == 2)
    }

    @Test("host names are compared lowercased and without a trailing dot")
    func canonicalHosts() {
        let jar = CookieJar()
        jar.receive(["a=1; Domain=EXAMPLE.com"], from: "https://API.Example.COM./")
        #expect(jar.header(for: "https://www.example.com/") == "a=1")
    }

    @Test("clear all, and clear by domain (the domain and its subdomains, not look-alikes)")
    func clearing() {
        let jar = CookieJar()
        jar.receive(["a=1"], from: "https://example.com/")
        jar.receive(["b=1"], from: "https://api.example.com/")
        jar.receive(["c=1; Domain=example.com"], from: "https://www.example.com/")
        jar.receive(["d=1"], from: "https://myexample.com/")
        jar.receive(["e=1"], from: "https://other.example/")
        jar.removeCookies(forDomain: "api.example.com")
        #expect(jar.cookies.map(\.name).sorted() == ["a", "c", "d", "e"])
        jar.removeCookies(forDomain: ".Example.com")
        #expect(jar.cookies.map(\.name).sorted() == ["d", "e"])
        jar.removeAll()
        #expect(jar.cookies.isEmpty)
    }

    @Test("printing a cookie never shows its value")
    func descriptionRedacts() throws {
        let jar = CookieJar()
        jar.receive(["session=s3cr3t-value; Secure; HttpOnly"], from: "https://example.com/")
        let text = String(describing: try #require(jar.cookies.first))
        #expect(!text.contains("s3cr3t"))
        #expect(text.contains("session=<redacted>"))
    }
}
