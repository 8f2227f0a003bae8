@testable import Courier
import Foundation
import Testing
import CourierTesting

/// Cookie tossing: a tenant of a shared hosting domain sets a cookie for the shared domain, and
/// the jar sends it to every other tenant (a session fixed by the first for the second). The
/// jars never connect anywhere: the hosts are only compared with the Public Suffix List.
@Suite("Cookie jar: tenants of shared hosting domains")
struct CookieTenantTests {
    @Test("with the default list, a tenant's cookie for the shared domain is refused and never reaches another tenant", arguments: [
        ("https://bucket-a.s3.amazonaws.com/", "https://bucket-b.s3.amazonaws.com/", "s3.amazonaws.com"),
        ("https://bucket-a.s3.amazonaws.com/", "https://bucket-b.s3.amazonaws.com/", "amazonaws.com"),
        ("https://app-a.fly.dev/", "https://app-b.fly.dev/", "fly.dev"),
        ("https://app-a.onrender.com/", "https://app-b.onrender.com/", "onrender.com"),
        ("https://svc-a-uc.a.run.app/", "https://svc-b-uc.a.run.app/", "a.run.app"),
        ("https://svc-a-uc.a.run.app/", "https://svc-b-uc.a.run.app/", "run.app"),
        ("https://pub-a.r2.dev/", "https://pub-b.r2.dev/", "r2.dev"),
        ("https://me.github.io/", "https://you.github.io/", "github.io"),
    ])
    func sharedDomainRefused(_ tenant: String, _ otherTenant: String, _ domain: String) {
        let jar = CookieJar()
        #expect(jar.receive(["sid=attacker; Domain=\(domain); Path=/"], from: tenant) == 0)
        #expect(jar.header(for: otherTenant) == nil)
        #expect(jar.cookies.isEmpty)
    }

    @Test("a tenant's own cookies still work: host-only, and for its own name and below")
    func tenantsOwnCookies() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(clock: clock)
        #expect(jar.receive(["a=1"], from: "https://bucket-a.s3.amazonaws.com/") == 1)
        clock.advance(by: 1)   // a is older, so it goes first
        #expect(jar.receive(["b=2; Domain=bucket-a.s3.amazonaws.com"], from: "https://bucket-a.s3.amazonaws.com/") == 1)
        #expect(jar.header(for: "https://bucket-a.s3.amazonaws.com/") == "a=1; b=2")
        #expect(jar.header(for: "https://eu.bucket-a.s3.amazonaws.com/") == "b=2")
        #expect(jar.header(for: "https://bucket-b.s3.amazonaws.com/") == nil)
    }

    @Test("a wildcard rule makes each name under it a suffix; an exception rule makes its name registrable (*.ck, !www.ck)")
    func wildcardAndException() {
        let jar = CookieJar()
        // *.ck: `tenant.ck` is a public suffix, so `shop.tenant.ck` is a site of its own.
        #expect(jar.receive(["a=1; Domain=tenant.ck"], from: "https://shop.tenant.ck/") == 0)
        #expect(jar.receive(["b=1; Domain=shop.tenant.ck"], from: "https://www.shop.tenant.ck/") == 1)
        #expect(jar.header(for: "https://other.tenant.ck/") == nil)
        // !www.ck: `www.ck` is registrable, so a cookie for it is its own to set.
        #expect(jar.receive(["c=1; Domain=www.ck"], from: "https://shop.www.ck/") == 1)
        #expect(jar.header(for: "https://www.ck/") == "c=1")
        #expect(jar.receive(["d=1; Domain=ck"], from: "https://www.ck/") == 0)
    }

    @Test("a Domain above the host's registrable domain is refused even when the list does not name it (only a wildcard below it)")
    func aboveRegistrableDomain() {
        // `*.hosting.example`: each `x.hosting.example` is a suffix; `hosting.example` is not.
        let jar = CookieJar(publicSuffixes: PublicSuffixList(rules: "*.hosting.example\n"))
        #expect(jar.receive(["a=1; Domain=hosting.example"], from: "https://app.tenant.hosting.example/") == 0)
        #expect(jar.receive(["b=1; Domain=tenant.hosting.example"], from: "https://app.tenant.hosting.example/") == 0)
        #expect(jar.header(for: "https://app.other.hosting.example/") == nil)
        // The host's own registrable domain and its subdomains stay allowed.
        #expect(jar.receive(["c=1; Domain=app.tenant.hosting.example"], from: "https://www.app.tenant.hosting.example/") == 1)
        #expect(jar.header(for: "https://app.tenant.hosting.example/") == "c=1")
    }
}
