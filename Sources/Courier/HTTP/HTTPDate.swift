import Foundation

/// HTTP dates, read the one way for every field that holds one: a cookie's `Expires`, and the
/// cache's `Date`, `Expires` and `Last-Modified`. The format is RFC 9110's IMF-fixdate
/// (`Wed, 21 Oct 2015 07:28:00 GMT`), read fast, and otherwise RFC 6265 §5.1.1's lenient
/// algorithm, which browsers use and which also reads the obsolete forms RFC 9110 §5.6.7 asks a
/// recipient to accept (`Wednesday, 21-Oct-15 07:28:00 GMT`, `Wed Oct 21 07:28:00 2015`).
///
/// Hand-written: `DateFormatter` accepts one fixed shape per format string, and the RFC's
/// algorithm (tokens in any order, two-digit years) is not any of them.
package enum HTTPDate {
    /// Parses an HTTP date; `nil` when §5.1.1 says the date fails to parse.
    package static func parse(_ text: Substring) -> Date? {
        if let fixed = text.utf8.withContiguousStorageIfAvailable(imfFixdate), let date = fixed { return date }
        var hour = -1, minute = -1, second = -1, day = -1, month = -1, year = -1
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            let bytes = Array(token)
            if hour < 0, let time = Self.time(bytes) {
                (hour, minute, second) = time
            } else if day < 0, let value = leadingNumber(bytes, digits: 1...2) {
                day = value
            } else if month < 0, let value = monthNumber(bytes) {
                month = value
            } else if year < 0, let value = leadingNumber(bytes, digits: 2...4) {
                year = value
            }
        }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard hour >= 0, day >= 1, day <= 31, month >= 1, year >= 1601,
              hour <= 23, minute <= 59, second <= 59, day <= daysIn(month: month, year: year) else { return nil }
        let seconds = (daysFromCivil(year: year, month: month, day: day) * 86_400) + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7): the one shape HTTP
    /// servers send in `Date`, `Expires` and `Last-Modified`, and most `Set-Cookie` `Expires`,
    /// read by position. The algorithm above reads it too, token by token, at many times the
    /// cost (an HTTP cache reads `Date` at least twice per revalidation). `nil` for any other shape or an invalid
    /// date, which the token-by-token algorithm then reads or refuses.
    private static func imfFixdate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
              bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
              bytes[26] == UInt8(ascii: "G"), bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T") else { return nil }
        func number(at start: Int, digits: Int) -> Int? {
            var value = 0
            for index in start..<(start + digits) {
                guard isDigit(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let day = number(at: 5, digits: 2), let year = number(at: 12, digits: 4), let hour = number(at: 17, digits: 2),
              let minute = number(at: 20, digits: 2), let second = number(at: 23, digits: 2),
              let month = monthNumber(bytes[8], bytes[9], bytes[10]),
              day >= 1, year >= 1601, hour <= 23, minute <= 59, second <= 59, day <= daysIn(month: month, year: year) else { return nil }
        let seconds = (daysFromCivil(year: year, month: month, day: day) * 86_400) + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT ( non-digit *OCTET )`.
    private static func time(_ bytes: [UInt8]) -> (Int, Int, Int)? {
        var index = 0
        var fields: [Int] = []
        for field in 0..<3 {
            let start = index
            var value = 0
            while index < bytes.count, index - start < 2, isDigit(bytes[index]) {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            guard index > start else { return nil }
            fields.append(value)
            if field < 2 {
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        if index < bytes.count, isDigit(bytes[index]) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    /// A number of `digits` digits at the start of the token, followed by nothing or a non-digit.
    private static func leadingNumber(_ bytes: [UInt8], digits: ClosedRange<Int>) -> Int? {
        var count = 0
        var value = 0
        while count < bytes.count, isDigit(bytes[count]) {
            count += 1
            guard count <= digits.upperBound else { return nil }
            value = value * 10 + Int(bytes[count - 1] - 0x30)
        }
        return digits.contains(count) ? value : nil
    }

    /// The months' three-letter names, lowercase, each packed into the low bytes of a `UInt32`.
    private static let months: [UInt32] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map { name in
        name.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A token whose first three letters name a month, case-insensitively.
    private static func monthNumber(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 3 else { return nil }
        return monthNumber(bytes[0], bytes[1], bytes[2])
    }

    /// The month three letters name, case-insensitively (`| 0x20` lowercases ASCII letters and
    /// turns no other byte into one).
    private static func monthNumber(_ first: UInt8, _ second: UInt8, _ third: UInt8) -> Int? {
        let packed = UInt32(first | 0x20) << 16 | UInt32(second | 0x20) << 8 | UInt32(third | 0x20)
        return months.firstIndex(of: packed).map { $0 + 1 }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
