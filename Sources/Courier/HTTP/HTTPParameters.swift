/// The one reader of the `name=value` lists HTTP fields are made of: `Cache-Control`'s
/// directives, a media type's parameters, a `Link`'s parameters, a `Set-Cookie`'s attributes.
///
/// Each item runs up to the next `separator` (`,` or `;`) outside a quoted string, or up to a
/// `terminator` (a `Link` ends at a `,`), and is read as `name` or `name=value`, both trimmed of
/// spaces and tabs (RFC 9110 §5.6.3); empty items are skipped. With ``Quoting-swift.enum/quotedStrings``
/// a value may be a quoted string (RFC 9110 §5.6.4): a separator inside it does not end the
/// item, and the value comes without its quotes and backslash escapes. `Set-Cookie` uses
/// ``Quoting-swift.enum/none``: RFC 6265 §5.2 splits at every `;` and keeps quotes as part of a
/// value.
///
/// Reads bytes, not characters: the syntax is ASCII, and the cache reads `Cache-Control` on
/// every request it serves. Items are slices of the text; only a quoted value with escapes is
/// copied.
///
/// ```swift
/// var parameters = HTTPParameters(#"no-cache, max-age="60", private"#, separator: ",")
/// while let item = parameters.next() { print(item.name, item.value ?? "-") }
/// // no-cache -   max-age 60   private -
/// ```
package struct HTTPParameters: Sequence, IteratorProtocol {
    /// Whether values may be quoted strings.
    package enum Quoting: Sendable {
        /// RFC 9110's quoted strings: `"…"` with `\`-escapes.
        case quotedStrings
        /// No quoting: `"` is an ordinary byte (RFC 6265's cookie attributes).
        case none
    }

    /// One `name` or `name=value` item.
    package struct Item: Sendable, Equatable {
        /// The name, trimmed; case as written (HTTP's parameter names are case-insensitive:
        /// compare with ``nameIs(_:)`` or lowercase it).
        package var name: Substring
        /// The value, trimmed, without quotes and escapes; `nil` when the item has no `=`.
        package var value: Substring?
        /// Whether the value was a quoted string.
        package var valueWasQuoted: Bool

        /// Whether the name is `lowercaseName`, compared ASCII case-insensitively (without
        /// lowercasing the name, which a hostile field could make megabytes long).
        package func nameIs(_ lowercaseName: StaticString) -> Bool {
            guard name.utf8.count == lowercaseName.utf8CodeUnitCount else { return false }
            let expected = UnsafeBufferPointer(start: lowercaseName.utf8Start, count: lowercaseName.utf8CodeUnitCount)
            return zip(name.utf8, expected).allSatisfy { HTTPParameters.lowercased($0) == $1 }
        }
    }

    private let text: Substring
    private let separator: UInt8
    private let terminator: UInt8?
    private let quoting: Quoting
    private var index: Substring.Index
    /// Where reading stopped at the terminator (the index of the terminator), or `nil`.
    package private(set) var terminatorIndex: Substring.Index?

    /// Reads `text`'s items, split at `separator` (an ASCII character), stopping at
    /// `terminator` outside a quoted string.
    package init(_ text: Substring, separator: Unicode.Scalar, terminator: Unicode.Scalar? = nil, quoting: Quoting = .quotedStrings) {
        self.text = text
        self.separator = UInt8(ascii: separator)
        self.terminator = terminator.map { UInt8(ascii: $0) }
        self.quoting = quoting
        self.index = text.startIndex
    }

    /// Reads `text`'s items (see ``init(_:separator:terminator:quoting:)-(Substring,_,_,_)``).
    package init(_ text: String, separator: Unicode.Scalar, terminator: Unicode.Scalar? = nil, quoting: Quoting = .quotedStrings) {
        self.init(text[...], separator: separator, terminator: terminator, quoting: quoting)
    }

    /// The next non-empty item, or `nil` at the end (or at the terminator).
    package mutating func next() -> Item? {
        let bytes = text.utf8
        while index < text.endIndex, terminatorIndex == nil {
            let start = index
            var equals: Substring.Index?
            var inQuotes = false
            var escaped = false
            var end = index
            while end < text.endIndex {
                let byte = bytes[end]
                if inQuotes {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inQuotes = false }
                } else if byte == separator {
                    break
                } else if let terminator, byte == terminator {
                    terminatorIndex = end
                    break
                } else if byte == UInt8(ascii: "=") {
                    if equals == nil { equals = end }
                } else if byte == UInt8(ascii: "\""), quoting == .quotedStrings, equals != nil {
                    inQuotes = true
                }
                bytes.formIndex(after: &end)
            }
            index = end < text.endIndex && terminatorIndex == nil ? bytes.index(after: end) : end
            let item = text[start..<end]
            guard let equals else {
                let name = item.trimmingSpacesAndTabs()
                if name.isEmpty { continue }
                return Item(name: name, value: nil, valueWasQuoted: false)
            }
            let name = text[start..<equals].trimmingSpacesAndTabs()
            let raw = text[bytes.index(after: equals)..<end].trimmingSpacesAndTabs()
            if name.isEmpty, raw.isEmpty { continue }
            guard quoting == .quotedStrings, raw.utf8.first == UInt8(ascii: "\"") else {
                return Item(name: name, value: raw, valueWasQuoted: false)
            }
            return Item(name: name, value: Self.unquoted(raw), valueWasQuoted: true)
        }
        return nil
    }

    /// A quoted string without its quotes and escapes: a slice when it has no escapes. An
    /// unterminated string runs to the end of the item.
    private static func unquoted(_ quoted: Substring) -> Substring {
        let bytes = quoted.utf8
        let inner = quoted[bytes.index(after: bytes.startIndex)...]
        guard inner.utf8.contains(UInt8(ascii: "\\")) else {
            return inner.utf8.last == UInt8(ascii: "\"") ? inner[..<inner.utf8.index(before: inner.endIndex)] : inner
        }
        var out: [UInt8] = []
        out.reserveCapacity(inner.utf8.count)
        var escaped = false
        for byte in inner.utf8 {
            if escaped { out.append(byte); escaped = false }
            else if byte == UInt8(ascii: "\\") { escaped = true }
            else if byte == UInt8(ascii: "\"") { break }
            else { out.append(byte) }
        }
        return Substring(decoding: out, as: UTF8.self)
    }

    /// An ASCII letter lowercased; any other byte as it is.
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte &- 0x41) < 26 ? byte | 0x20 : byte
    }
}
