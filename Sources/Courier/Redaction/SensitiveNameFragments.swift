/// ``Redaction/sensitiveNameFragments`` as bytes, searched in a name's UTF-8 without allocating.
enum SensitiveNameFragments {
    /// For each byte value, the fragments that start with it (all lowercase ASCII), so one pass
    /// over the name looks only at fragments whose first letter is there.
    private static let fragmentsByFirstByte: [[[UInt8]]] = {
        var table = [[[UInt8]]](repeating: [], count: 256)
        for fragment in Redaction.sensitiveNameFragments.map({ Array($0.utf8) }) where !fragment.isEmpty {
            table[Int(fragment[0])].append(fragment)
        }
        return table
    }()

    /// Whether the ASCII-lowercased `name` contains a fragment, or `nil` when `name` has a
    /// non-ASCII byte (the caller then lowercases it the Unicode way).
    static func matchASCII(_ name: UnsafeBufferPointer<UInt8>) -> Bool? {
        for byte in name where byte >= 0x80 { return nil }
        for start in name.indices {
            for fragment in fragmentsByFirstByte[Int(lowered(name[start]))]
            where start + fragment.count <= name.count && matches(fragment, in: name, at: start) {
                return true
            }
        }
        return false
    }

    private static func matches(_ fragment: [UInt8], in name: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        for offset in 1..<fragment.count where lowered(name[start + offset]) != fragment[offset] { return false }
        return true
    }

    /// `byte` with `A`–`Z` mapped to `a`–`z`.
    private static func lowered(_ byte: UInt8) -> UInt8 {
        (byte &- 0x41) < 26 ? byte | 0x20 : byte
    }
}
