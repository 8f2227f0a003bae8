#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Comparison and hashing by UTF-8 bytes. `String`'s `==` and `hash(into:)` follow Unicode
// canonical equivalence: "é" (U+00E9) equals "e" + U+0301, though the bytes differ. Where a
// string names something that must not be confused with another — a cache key's namespace,
// whose text is hashed into a file name by its bytes — equal must mean the same bytes.
extension String {
    /// Whether the two strings hold the same UTF-8 bytes (`==` also takes canonically
    /// equivalent strings as equal).
    package func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                mine.isEmpty || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0
            }
        }
        if let inner = compared, let result = inner { return result }
        return utf8.elementsEqual(other.utf8)
    }

    /// Feeds the string's UTF-8 bytes, after their count, to `hasher`: equal for strings that
    /// ``hasSameUTF8(as:)`` calls equal.
    package func hashUTF8(into hasher: inout Hasher) {
        hasher.combine(utf8.count)
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { bytes in hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
        if hashed == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
    }
}
