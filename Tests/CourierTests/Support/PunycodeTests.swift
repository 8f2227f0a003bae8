@testable import Courier
import Testing

@Suite("Punycode (RFC 3492)")
struct PunycodeTests {
    /// RFC 3492 §7.1's sample strings and their encodings (mixed case kept, as the RFC shows it).
    static let samples: [(String, String)] = [
        // (A) Arabic (Egyptian)
        ("\u{644}\u{64A}\u{647}\u{645}\u{627}\u{628}\u{62A}\u{643}\u{644}\u{645}\u{648}\u{634}\u{639}\u{631}\u{628}\u{64A}\u{61F}", "egbpdaj6bu4bxfgehfvwxn"),
        // (B) Chinese (simplified), (C) Chinese (traditional)
        ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
        ("他們爲什麽不說中文", "ihqwctvzc91f659drss3x8bo0yb"),
        // (L) … (R) Japanese, with basic code points kept where they are
        ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),
        ("安室奈美恵-with-SUPER-MONKEYS", "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"),
        ("MajiでKoiする5秒前", "MajiKoi5-783gue6qz075azm5e"),
        ("そのスピードで", "d9juau41awczczp"),
        // (S) only basic code points
        ("-> $1.00 <-", "-> $1.00 <--"),
    ]

    @Test("RFC 3492's samples encode as the RFC gives them", arguments: PunycodeTests.samples)
    func rfcSamples(_ input: String, _ encoded: String) {
        #expect(Punycode.encode(input.unicodeScalars.map(\.value)) == encoded)
    }

    @Test("a label in its ASCII form: xn-- and its Punycode when it is not ASCII, itself when it is")
    func labels() {
        #expect(Punycode.asciiLabel("bücher") == "xn--bcher-kva")
        #expect(Punycode.asciiLabel("公司") == "xn--55qx5d")
        #expect(Punycode.asciiLabel("example") == "example")
        #expect(Punycode.asciiDomain("www.食狮.公司.cn") == "www.xn--85x722f.xn--55qx5d.cn")
        #expect(Punycode.asciiDomain("api.example.com") == "api.example.com")
    }
}
