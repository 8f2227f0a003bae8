import Courier
import Testing

@Suite("Log-safe text")
struct LogSafeTextTests {
    @Test("line breaks, terminal escapes and other controls are escaped; printable text is unchanged")
    func controlsAreEscaped() {
        #expect(LogSafeText.escape("plain text, ünïcödé, 中文 and 🚀") == "plain text, ünïcödé, 中文 and 🚀")
        #expect(LogSafeText.escape("a\nb\rc\td") == #"a\nb\rc\td"#)
        #expect(LogSafeText.escape("\u{1B}[2J\u{1B}[31mred") == #"\u{1B}[2J\u{1B}[31mred"#)
        #expect(LogSafeText.escape("nul\u{0}del\u{7F}") == #"nul\u{0}del\u{7F}"#)
    }

    @Test("C1 controls, Unicode line and paragraph separators and bidi overrides are escaped")
    func unicodeControlsAreEscaped() {
        #expect(LogSafeText.escape("a\u{85}b\u{9B}c") == #"a\u{85}b\u{9B}c"#)
        #expect(LogSafeText.escape("a\u{2028}b\u{2029}c") == #"a\u{2028}b\u{2029}c"#)
        #expect(LogSafeText.escape("user\u{202E}gnp.exe") == #"user\u{202E}gnp.exe"#)
        #expect(LogSafeText.escape("\u{2066}x\u{2069}\u{200F}\u{61C}") == #"\u{2066}x\u{2069}\u{200F}\u{61C}"#)
    }

    @Test("the result never holds a character that could start a new log line or rewrite the terminal")
    func resultIsOneSafeLine() {
        var all = ""
        for value in 0...0x20AF { if let scalar = Unicode.Scalar(value) { all.unicodeScalars.append(scalar) } }
        let escaped = LogSafeText.escape(all)
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" || (0x202A...0x202E).contains($0.value) })
    }
}
