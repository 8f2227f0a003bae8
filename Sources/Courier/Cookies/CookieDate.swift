import Foundation

/// The cookie date format of RFC 6265 §5.1.1: the lenient algorithm browsers use for
/// `Expires`, which reads `Wed, 21 Oct 2015 07:28:00 GMT`, `Wednesday, 21-Oct-15 07:28:00 GMT`,
/// `Wed Oct 21 07:28:00 2015` and other shapes servers send.
///
/// Hand-written: `DateFormatter` accepts one fixed shape per format string, and the RFC's
/// algorithm (tokens in any order, two-digit years) is not any of them.
package enum CookieDate {
    /// Parses a cookie date; `nil` when §5.1.1 says the date fails to parse.
    package static func parse(_ text: Substring) -> Date? {
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

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// A token whose first three letters name a month, case-insensitively.
    private static func monthNumber(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 3 else { return nil }
        let prefix = String(decoding: bytes[0..<3].map { $0 | 0x20 }, as: UTF8.self)
        return months.firstIndex(of: prefix).map { $0 + 1 }
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
