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

    @Test("the default list is the whole Public Suffix List: registries' suffixes, shared hosting domains, wildcards and exceptions")
    func fullList() {
        let list = PublicSuffixList.full
        // ICANN section, then private section (each customer's name under a hosting domain).
        for suffix in ["com", "co.uk", "com.au", "ac.jp", "anything.kobe.jp", "anything.ck",
                       "s3.amazonaws.com", "fly.dev", "onrender.com", "r2.dev", "github.io", "workers.dev", "anything.run.app"] {
            #expect(list.isPublicSuffix(suffix), "\(suffix)")
        }
        // Exceptions to a wildcard (`!www.ck` under `*.ck`, `!city.kobe.jp` under `*.kobe.jp`)
        // are registrable; so is what no rule names.
        for domain in ["www.ck", "city.kobe.jp", "example.com", "amazonaws.com", "example.co.uk"] {
            #expect(!list.isPublicSuffix(domain), "\(domain)")
        }
        #expect(list.registrableDomain(of: "bucket-a.s3.amazonaws.com") == "bucket-a.s3.amazonaws.com")
        #expect(list.registrableDomain(of: "svc-a.a.run.app") == "svc-a.a.run.app")
        #expect(list.registrableDomain(of: "shop.www.ck") == "www.ck")
    }

    /// publicsuffix.org's own test cases (tests/test_psl.txt of the list's repository, dedicated
    /// to the public domain): a host and its registrable domain, `nil` for a public suffix. Its
    /// null input and leading-dot cases are left out: neither is a host the jar can see.
    static let officialCases: [(String, String?)] = [
        // Mixed case.
        ("COM", nil),
        ("example.COM", "example.com"),
        ("WwW.example.COM", "example.com"),
        // Unlisted TLD.
        ("example", nil),
        ("example.example", "example.example"),
        ("b.example.example", "example.example"),
        ("a.b.example.example", "example.example"),
        // TLD with only 1 rule.
        ("biz", nil),
        ("domain.biz", "domain.biz"),
        ("b.domain.biz", "domain.biz"),
        ("a.b.domain.biz", "domain.biz"),
        // TLD with some 2-level rules.
        ("com", nil),
        ("example.com", "example.com"),
        ("b.example.com", "example.com"),
        ("a.b.example.com", "example.com"),
        ("uk.com", nil),
        ("example.uk.com", "example.uk.com"),
        ("b.example.uk.com", "example.uk.com"),
        ("a.b.example.uk.com", "example.uk.com"),
        ("test.ac", "test.ac"),
        // TLD with only 1 (wildcard) rule.
        ("mm", nil),
        ("c.mm", nil),
        ("b.c.mm", "b.c.mm"),
        ("a.b.c.mm", "b.c.mm"),
        // More complex TLD.
        ("jp", nil),
        ("test.jp", "test.jp"),
        ("www.test.jp", "test.jp"),
        ("ac.jp", nil),
        ("test.ac.jp", "test.ac.jp"),
        ("www.test.ac.jp", "test.ac.jp"),
        ("kyoto.jp", nil),
        ("test.kyoto.jp", "test.kyoto.jp"),
        ("ide.kyoto.jp", nil),
        ("b.ide.kyoto.jp", "b.ide.kyoto.jp"),
        ("a.b.ide.kyoto.jp", "b.ide.kyoto.jp"),
        ("c.kobe.jp", nil),
        ("b.c.kobe.jp", "b.c.kobe.jp"),
        ("a.b.c.kobe.jp", "b.c.kobe.jp"),
        ("city.kobe.jp", "city.kobe.jp"),
        ("www.city.kobe.jp", "city.kobe.jp"),
        // TLD with a wildcard rule and exceptions.
        ("ck", nil),
        ("test.ck", nil),
        ("b.test.ck", "b.test.ck"),
        ("a.b.test.ck", "b.test.ck"),
        ("www.ck", "www.ck"),
        ("www.www.ck", "www.ck"),
        // US K12.
        ("us", nil),
        ("test.us", "test.us"),
        ("www.test.us", "test.us"),
        ("ak.us", nil),
        ("test.ak.us", "test.ak.us"),
        ("www.test.ak.us", "test.ak.us"),
        ("k12.ak.us", nil),
        ("test.k12.ak.us", "test.k12.ak.us"),
        ("www.test.k12.ak.us", "test.k12.ak.us"),
        // IDN labels.
        ("食狮.com.cn", "食狮.com.cn"),
        ("食狮.公司.cn", "食狮.公司.cn"),
        ("www.食狮.公司.cn", "食狮.公司.cn"),
        ("shishi.公司.cn", "shishi.公司.cn"),
        ("公司.cn", nil),
        ("食狮.中国", "食狮.中国"),
        ("www.食狮.中国", "食狮.中国"),
        ("shishi.中国", "shishi.中国"),
        ("中国", nil),
        // Same as above, but punycoded.
        ("xn--85x722f.com.cn", "xn--85x722f.com.cn"),
        ("xn--85x722f.xn--55qx5d.cn", "xn--85x722f.xn--55qx5d.cn"),
        ("www.xn--85x722f.xn--55qx5d.cn", "xn--85x722f.xn--55qx5d.cn"),
        ("shishi.xn--55qx5d.cn", "shishi.xn--55qx5d.cn"),
        ("xn--55qx5d.cn", nil),
        ("xn--85x722f.xn--fiqs8s", "xn--85x722f.xn--fiqs8s"),
        ("www.xn--85x722f.xn--fiqs8s", "xn--85x722f.xn--fiqs8s"),
        ("shishi.xn--fiqs8s", "shishi.xn--fiqs8s"),
        ("xn--fiqs8s", nil),
    ]

    @Test("the default list passes the Public Suffix List's own test cases (wildcards, exceptions, IDN in Unicode and xn-- form)",
          arguments: PublicSuffixListTests.officialCases)
    func officialTestCases(_ host: String, _ registrable: String?) {
        // The jar lowercases hosts before it asks (the list's API takes them lowercased).
        #expect(PublicSuffixList.full.registrableDomain(of: host.lowercased()) == registrable)
    }

    @Test("a rule read from text: lowercased, CRLF line ends, and an internationalised one in both forms")
    func rulesFromText() {
        let list = PublicSuffixList(rules: "// IDN\r\nCO.UK\r\n公司.cn\r\n*.個人.香港\r\n")
        #expect(list.isPublicSuffix("co.uk"))
        #expect(list.isPublicSuffix("公司.cn"))
        #expect(list.isPublicSuffix("xn--55qx5d.cn"))
        #expect(list.registrableDomain(of: "www.shop.xn--55qx5d.cn") == "shop.xn--55qx5d.cn")
        #expect(list.isPublicSuffix("anyone.個人.香港"))
        #expect(list.isPublicSuffix("anyone.xn--gmqw5a.xn--j6w193g"))
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
