/// A `Content-Range` field value in bytes (RFC 9110 §14.4): `bytes 100-199/1000`,
/// `bytes 100-199/*` (length unknown), or `bytes */1000` (a `416`'s "the representation is
/// 1000 bytes long").
///
/// Strict: one space after the unit, decimal digits only, at most 18 of them (so no value a
/// server sends can overflow an `Int64`), the last byte not before the first, and — when the
/// length is known — before it. Anything else is `nil`: a download never places bytes by a
/// value it had to guess at.
struct ContentRange: Equatable, Sendable {
    /// The first and last byte positions, both included; `nil` for `bytes */length`.
    var first: Int64?
    var last: Int64?
    /// The representation's complete length; `nil` for `*`.
    var completeLength: Int64?

    /// The number of bytes the range covers (0 for `bytes */length`).
    var count: Int64 {
        guard let first, let last else { return 0 }
        return last - first + 1
    }

    init(first: Int64?, last: Int64?, completeLength: Int64?) {
        self.first = first
        self.last = last
        self.completeLength = completeLength
    }

    init?(_ value: String) {
        let bytes = Array(value.utf8)
        // The unit is case-insensitive (RFC 9110 §14.1).
        guard bytes.count > 6, String(decoding: bytes[0..<5], as: UTF8.self).lowercased() == "bytes", bytes[5] == UInt8(ascii: " ") else { return nil }
        let rest = bytes[6...]
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let rangePart = rest[rest.startIndex..<slash]
        let lengthPart = rest[(slash + 1)...]
        if lengthPart.elementsEqual("*".utf8) {
            completeLength = nil
        } else {
            guard let length = Self.number(lengthPart) else { return nil }
            completeLength = length
        }
        if rangePart.elementsEqual("*".utf8) {
            // `*/length` is only meaningful with a length.
            guard completeLength != nil else { return nil }
            first = nil
            last = nil
            return
        }
        guard let dash = rangePart.firstIndex(of: UInt8(ascii: "-")),
              let first = Self.number(rangePart[rangePart.startIndex..<dash]),
              let last = Self.number(rangePart[(dash + 1)...]),
              first <= last
        else { return nil }
        if let completeLength, last >= completeLength { return nil }
        self.first = first
        self.last = last
    }

    /// 1 to 18 decimal digits as a number; `nil` otherwise.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        guard (1...18).contains(digits.count) else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }
}
