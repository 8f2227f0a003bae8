/// ``Redaction/sensitiveNameFragments`` as bytes, searched in a name's UTF-8 without allocating.
enum SensitiveNameFragments {
    /// Each fragment's UTF-8 bytes (all lowercase ASCII).
    private static let fragments: [[UInt8]] = Redaction.sensitiveNameFragments.map { Array($0.utf8) }

    /// Whether the ASCII-lowercased `name` contains a fragment, or `nil` when `name` has a
    /// non-ASCII byte (the caller then lowercases it the Unicode way).
    static func matchASCII(_ name: UnsafeBufferPointer<UInt8>) -> Bool? {
        for byte in name where byte >= 0x80 { return nil }
        for fragment in fragments where fragment.count <= name.count {
            let first = fragment[0]
            var start = 0
            while start + fragment.count <= name.count {
                if lowered(name[start]) == first, matches(fragment, in: name, at: start) { return true }
                start += 1
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
