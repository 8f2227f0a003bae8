/// The names a request puts on the wire for a parameter: query item names and header field
/// names, checked at compile time so a typo fails the build instead of the call.
enum WireNames {
    /// Where a wire name goes, with the characters it may use.
    enum Kind {
        case query
        case header

        /// `query item` / `header`, for messages.
        var noun: String {
            switch self {
            case .query: "query item"
            case .header: "header"
            }
        }

        /// `query name` / `header field name`, for messages.
        var nameNoun: String {
            switch self {
            case .query: "query name"
            case .header: "header field name"
            }
        }

        /// The punctuation allowed besides ASCII letters and digits.
        ///
        /// Query names: RFC 3986's query characters (unreserved, sub-delims, `:`, `@`, `/`, `?`)
        /// without the two that structure a query string (`&`, `=`) and `+` (a space to
        /// form decoders), plus `[` and `]` for `tag[]` and `filter[name]`. Header names: an
        /// RFC 9110 token.
        var punctuation: String {
            switch self {
            case .query: "-._~!$'()*,;:@/?[]"
            case .header: "!#$%&'*+-.^_`|~"
            }
        }

        /// Whether two names are the same on the wire (header names ignore case).
        func same(_ a: String, _ b: String) -> Bool {
            switch self {
            case .query: a == b
            case .header: a.lowercased() == b.lowercased()
            }
        }
    }

    /// Why `name` cannot be sent as a `kind` name.
    enum Problem: Equatable {
        case empty
        /// The first character that is not allowed, described for a message (`a space`, `'&'`).
        case character(String)
    }

    /// The problem with `name`, or nil when it can be sent as it is.
    static func problem(with name: String, as kind: Kind) -> Problem? {
        if name.isEmpty { return .empty }
        guard let bad = name.unicodeScalars.first(where: { !isAllowed($0, in: kind) }) else { return nil }
        return .character(describe(bad))
    }

    /// The fix-it's replacement for an invalid `name`, when one is obvious: surrounding spaces
    /// dropped and, for a header, a trailing `:` dropped and inner spaces made `-`
    /// (`"X-Trace:"` → `X-Trace`, `"X Trace"` → `X-Trace`). Nil when the result is still invalid.
    static func repaired(_ name: String, as kind: Kind) -> String? {
        var trimmed = Substring(name)
        while trimmed.first?.isWhitespace == true { trimmed = trimmed.dropFirst() }
        while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
        if kind == .header, trimmed.last == ":" {
            trimmed = trimmed.dropLast()
            while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
        }
        var repaired = String(trimmed)
        if kind == .header {
            repaired = repaired.split(whereSeparator: \.isWhitespace).joined(separator: "-")
        }
        return repaired != name && problem(with: repaired, as: kind) == nil ? repaired : nil
    }

    private static func isAllowed(_ scalar: Unicode.Scalar, in kind: Kind) -> Bool {
        guard scalar.isASCII else { return false }
        let value = scalar.value
        if (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) { return true }
        return kind.punctuation.unicodeScalars.contains(scalar)
    }

    private static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case " ": return "a space"
        case "\t": return "a tab"
        case "\r": return "a carriage return"
        case "\n": return "a line feed"
        default:
            if scalar.properties.generalCategory == .control || scalar.properties.isWhitespace {
                return "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
            }
            return "'\(scalar)'"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
