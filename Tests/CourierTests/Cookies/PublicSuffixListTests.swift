import Courier
import Foundation
import Testing

@Suite("Public suffixes")
struct PublicSuffixListTests {
    @Test("the embedded list: every top-level domain, common multi-label suffixes and hosting domains")
    func common() {
        let list = PublicSuffixList.common
        for suffix in ["com", "uk", "co.uk", "com.au", "co.jp", "github.io", "localhost", "example"] {
            #expect(list.isPublicSuffix(suffix), "\(suffix)")
        }
        for domain in ["example.com", "example.co.uk", "me.github.io", "a.example.com"] {
            #expect(!list.isPublicSuffix(domain), "\(domain)")
        }
        #expect(list.registrableDomain(of: "www.shop.example.co.uk") == "example.co.uk")
        #expect(list.registrableDomain(of: "co.uk") == nil)
    }

    @Test("the list's format: comments, wildcards and exceptions; the exception prevails")
    func format() {
        let list = PublicSuffixList(rules: """
        // a comment
        ck
        *.ck
        !www.ck
        jp
        *.kobe.jp
        // ===BEGIN PRIVATE DOMAINS===
        blogspot.com   trailing text is ignored
        """)
        #expect(list.isPublicSuffix("anything.ck"))
        #expect(!list.isPublicSuffix("www.ck"))
        #expect(list.registrableDomain(of: "a.b.anything.ck") == "b.anything.ck")
        #expect(list.registrableDomain(of: "www.ck") == "www.ck")
        #expect(list.publicSuffix(of: "city.kobe.jp") == "city.kobe.jp")
        #expect(list.isPublicSuffix("blogspot.com"))
        #expect(list.publicSuffix(of: "unknown.tld") == "tld")
    }

    @Test("a jar with a loaded list refuses its suffixes")
    func jarUsesList() {
        let jar = CookieJar(publicSuffixes: PublicSuffixList(rules: "*.example\n"))
        #expect(!jar.setCookie("a=1; Domain=tenant.example", for: URL(string: "https://app.tenant.example/")!))
        #expect(jar.setCookie("a=1; Domain=app.tenant.example", for: URL(string: "https://www.app.tenant.example/")!))
    }

    @Test("the system's full list loads when the machine has one (Debian's publicsuffix package)",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/publicsuffix/public_suffix_list.dat")))
    func systemList() throws {
        let list = try PublicSuffixList(contentsOf: URL(fileURLWithPath: "/usr/share/publicsuffix/public_suffix_list.dat"))
        #expect(list.isPublicSuffix("co.uk"))
        #expect(list.isPublicSuffix("s3.amazonaws.com"))
        #expect(!list.isPublicSuffix("example.com"))
        #expect(list.registrableDomain(of: "a.b.example.co.uk") == "example.co.uk")
    }
}
