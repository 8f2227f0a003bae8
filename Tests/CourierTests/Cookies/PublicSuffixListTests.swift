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
                       "s3.amazonaws.com", "fly.dev", "onrender.com", "r2.dev", "github.io", "workers.dev", "run.app", "a.run.app"] {
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

    /// Hosts and their registrable domains (`nil`: the host is a public suffix, or under no
    /// known top-level domain), written for Courier from the list's rules: each kind of rule the
    /// format has, in both sections.
    static let listCases: [(String, String?)] = [
        // Case does not matter.
        ("ORG", nil),
        ("shop.Example.ORG", "example.org"),
        // A top-level domain the list does not name is a suffix all the same (the list's
        // implicit `*` rule).
        ("lan", nil),
        ("printer.lan", "printer.lan"),
        ("a.printer.lan", "printer.lan"),
        // Plain rules, one and several labels.
        ("ac", nil),
        ("uni.ac", "uni.ac"),
        ("www.uni.ac", "uni.ac"),
        ("co.uk", nil),
        ("shop.co.uk", "shop.co.uk"),
        ("a.b.shop.co.uk", "shop.co.uk"),
        ("k12.ak.us", nil),
        ("school.k12.ak.us", "school.k12.ak.us"),
        ("www.school.k12.ak.us", "school.k12.ak.us"),
        // Wildcards, and the exceptions that win over them.
        ("anything.ck", nil),
        ("site.anything.ck", "site.anything.ck"),
        ("www.ck", "www.ck"),
        ("a.www.ck", "www.ck"),
        ("anything.kawasaki.jp", nil),
        ("shop.anything.kawasaki.jp", "shop.anything.kawasaki.jp"),
        ("city.kawasaki.jp", "city.kawasaki.jp"),
        ("www.city.kawasaki.jp", "city.kawasaki.jp"),
        ("anything.mm", nil),
        ("shop.anything.mm", "shop.anything.mm"),
        // Internationalised rules, in Unicode and in their xn-- form.
        ("公司.cn", nil),
        ("商店.公司.cn", "商店.公司.cn"),
        ("xn--55qx5d.cn", nil),
        ("shop.xn--55qx5d.cn", "shop.xn--55qx5d.cn"),
        // The private section: shared hosting domains.
        ("uk.com", nil),
        ("shop.uk.com", "shop.uk.com"),
        ("github.io", nil),
        ("me.github.io", "me.github.io"),
        ("blogspot.com", nil),
        ("diary.blogspot.com", "diary.blogspot.com"),
        ("bucket.s3.amazonaws.com", "bucket.s3.amazonaws.com"),
    ]

    @Test("the default list gives each kind of rule its registrable domain (wildcards, exceptions, IDN in Unicode and xn-- form, private section)",
          arguments: PublicSuffixListTests.listCases)
    func registrableDomains(_ host: String, _ registrable: String?) {
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
