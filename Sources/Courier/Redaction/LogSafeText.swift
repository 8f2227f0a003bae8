/// Makes text that came from a server safe to print on one log line or a terminal.
///
/// A server's error message, a body prefix or a `Location` header can carry a line break (which
/// starts a forged log line), terminal escapes (`ESC [2K` erases the line, `ESC ]0;` retitles
/// the window), Unicode line separators or bidi overrides (which reorder what a reader sees).
/// Courier passes everything server-supplied that it prints through ``escape(_:)``; call it on
/// server text you log yourself.
///
/// ```swift
/// LogSafeText.escape("bad\n2026 INFO forged\u{1B}[2K")   // bad\n2026 INFO forged\u{1B}[2K (backslashes, one line)
/// ```
package enum LogSafeText {
    /// `text` with every control character written as a visible escape: `\n`, `\r`, `\t`, and
    /// `\u{…}` for other C0 controls, DEL, C1 controls, U+2028/U+2029 and the bidirectional
    /// formatting characters (U+061C, U+200E/F, U+202A–E, U+2066–9). Printable text, in any
    /// script, is unchanged.
    package static func escape(_ text: String) -> String {
        // Printable ASCII (the common case) needs no work.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return text }
        guard text.unicodeScalars.contains(where: needsEscaping) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscaping(scalar) else {
                out.append(scalar)
                continue
            }
            let escaped: String
            switch scalar {
            case "\n": escaped = #"\n"#
            case "\r": escaped = #"\r"#
            case "\t": escaped = #"\t"#
            default: escaped = #"\u{"# + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            out.append(contentsOf: escaped.unicodeScalars)
        }
        return String(out)
    }

    /// Whether `scalar` must not be printed as it is.
    package static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true                     // C0, DEL, C1 (NEL, CSI…)
        case 0x2028, 0x2029: return true                                // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidi formatting
        default: return false
        }
    }
}
