/// A reader of RFC 9651 Structured Field values, as far as Courier reads them: an Item's bare
/// value (Integer, Boolean, and the other types only to be skipped) and a Dictionary.
///
/// Written here rather than taken from swift-http-structured-headers because the core module
/// promises to depend on swift-http-types, swift-openapi-runtime and swift-log alone (CI checks
/// it), and the fields Courier reads (`Upload-Offset`, `Upload-Complete`, `Upload-Length`,
/// `Upload-Limit`) need a tenth of that package. Anything that does not parse makes the whole
/// field ignored (`nil`), as RFC 9651 §4.2 says a receiver does.
struct StructuredFieldReader {
    /// A bare item's value: what Courier acts on, or `.other` for a well-formed value of a type
    /// it does not use (a string, a token, a decimal, a byte sequence, an inner list).
    enum Value: Equatable {
        case integer(Int64)
        case boolean(Bool)
        case other
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ text: String) { bytes = Array(text.utf8) }

    /// The field as an Item (parameters read and dropped); `nil` when it does not parse.
    static func item(_ field: String) -> Value? {
        var reader = StructuredFieldReader(field)
        reader.skipSpaces()
        guard let value = reader.bareItemWithParameters() else { return nil }
        reader.skipSpaces()
        return reader.atEnd ? value : nil
    }

    /// The field as a Dictionary, keys in the order they first appear (a repeated key keeps its
    /// last value, as RFC 9651 says); `nil` when it does not parse.
    static func dictionary(_ field: String) -> [(key: String, value: Value)]? {
        var reader = StructuredFieldReader(field)
        var members: [(key: String, value: Value)] = []
        var positions: [String: Int] = [:]   // a key's place in `members` (a repeated key: one pass, not one per member)
        reader.skipSpaces()
        if reader.atEnd { return members }
        while true {
            guard let key = reader.key() else { return nil }
            let value: Value
            if reader.peek == UInt8(ascii: "=") {
                reader.index += 1
                if reader.peek == UInt8(ascii: "(") {
                    guard reader.innerList() else { return nil }
                    guard reader.parameters() else { return nil }
                    value = .other
                } else {
                    guard let item = reader.bareItemWithParameters() else { return nil }
                    value = item
                }
            } else {
                guard reader.parameters() else { return nil }
                value = .boolean(true)
            }
            if let position = positions[key] {
                members[position].value = value
            } else {
                positions[key] = members.count
                members.append((key, value))
            }
            reader.skipWhitespace()
            if reader.atEnd { return members }
            guard reader.peek == UInt8(ascii: ",") else { return nil }
            reader.index += 1
            reader.skipWhitespace()
            if reader.atEnd { return nil }   // a trailing comma
        }
    }

    // MARK: Grammar

    private var atEnd: Bool { index >= bytes.count }
    private var peek: UInt8? { atEnd ? nil : bytes[index] }

    private mutating func skipSpaces() {
        while peek == UInt8(ascii: " ") { index += 1 }
    }

    private mutating func skipWhitespace() {
        while peek == UInt8(ascii: " ") || peek == UInt8(ascii: "\t") { index += 1 }
    }

    private mutating func bareItemWithParameters() -> Value? {
        guard let value = bareItem(), parameters() else { return nil }
        return value
    }

    /// `;key[=bare-item]…`, read and dropped.
    private mutating func parameters() -> Bool {
        while peek == UInt8(ascii: ";") {
            index += 1
            skipSpaces()
            guard key() != nil else { return false }
            if peek == UInt8(ascii: "=") {
                index += 1
                guard bareItem() != nil else { return false }
            }
        }
        return true
    }

    private mutating func key() -> String? {
        guard let first = peek, Self.isLower(first) || first == UInt8(ascii: "*") else { return nil }
        let start = index
        while let byte = peek, Self.isLower(byte) || Self.isDigit(byte) || "_-.*".utf8.contains(byte) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func innerList() -> Bool {
        index += 1   // "("
        while true {
            skipSpaces()
            if peek == UInt8(ascii: ")") { index += 1; return true }
            guard bareItemWithParameters() != nil else { return false }
            guard peek == UInt8(ascii: " ") || peek == UInt8(ascii: ")") else { return false }
        }
    }

    private mutating func bareItem() -> Value? {
        guard let first = peek else { return nil }
        switch first {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        case UInt8(ascii: "?"):
            index += 1
            defer { index += 1 }
            switch peek {
            case UInt8(ascii: "0"): return .boolean(false)
            case UInt8(ascii: "1"): return .boolean(true)
            default: return nil
            }
        case UInt8(ascii: "\""): return string() ? .other : nil
        case UInt8(ascii: ":"): return byteSequence() ? .other : nil
        case UInt8(ascii: "@"):   // a Date (RFC 9651): an Integer after "@"
            index += 1
            guard case .integer? = number() else { return nil }
            return .other
        case UInt8(ascii: "%"): return displayString() ? .other : nil
        default:
            guard Self.isAlpha(first) || first == UInt8(ascii: "*") else { return nil }
            while let byte = peek, Self.isAlpha(byte) || Self.isDigit(byte) || "!#$%&'*+-.^_`|~:/".utf8.contains(byte) { index += 1 }
            return .other
        }
    }

    /// An Integer (at most 15 digits) or a Decimal (at most 12 integer and 3 fraction digits).
    private mutating func number() -> Value? {
        var negative = false
        if peek == UInt8(ascii: "-") { negative = true; index += 1 }
        var digits = 0
        var value: Int64 = 0
        var fraction = -1
        while let byte = peek {
            if Self.isDigit(byte) {
                if fraction >= 0 { fraction += 1 } else { digits += 1; value = value * 10 + Int64(byte - UInt8(ascii: "0")) }
                if digits > 15 || fraction > 3 { return nil }
            } else if byte == UInt8(ascii: "."), fraction < 0 {
                if digits > 12 { return nil }
                fraction = 0
            } else {
                break
            }
            index += 1
        }
        guard digits > 0, fraction != 0 else { return nil }
        if fraction > 0 { return .other }
        return .integer(negative ? -value : value)
    }

    private mutating func string() -> Bool {
        index += 1
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case UInt8(ascii: "\\"):
                guard peek == UInt8(ascii: "\"") || peek == UInt8(ascii: "\\") else { return false }
                index += 1
            case 0x20..<0x7F: continue
            default: return false
            }
        }
        return false
    }

    private mutating func byteSequence() -> Bool {
        index += 1
        while let byte = peek {
            index += 1
            if byte == UInt8(ascii: ":") { return true }
            guard Self.isAlpha(byte) || Self.isDigit(byte) || "+/=".utf8.contains(byte) else { return false }
        }
        return false
    }

    private mutating func displayString() -> Bool {
        index += 1
        guard peek == UInt8(ascii: "\"") else { return false }
        return string()
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isAlpha(_ byte: UInt8) -> Bool { isLower(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) }
}
