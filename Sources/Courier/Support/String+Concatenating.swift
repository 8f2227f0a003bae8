// Strings joined with one allocation and one copy of each part. `+=` on a String does capacity
// checks, breadcrumbs, count and flags updates at each part, even
// into a buffer reserved up front; an interpolation grows its buffer as well. Log lines and
// URLs are built from a few to a dozen parts per request, so this is worth the few lines.
extension String {
    /// `parts` one after the other, in a string allocated once at its final size.
    package init(concatenating parts: [String]) {
        var count = 0
        for part in parts { count += part.utf8.count }
        self.init(unsafeUninitializedCapacity: count) { buffer in
            var offset = 0
            for part in parts {
                let copied = part.utf8.withContiguousStorageIfAvailable { bytes -> Int in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
                    buffer.baseAddress!.advanced(by: offset).initialize(from: base, count: bytes.count)
                    return bytes.count
                }
                if let copied {
                    offset += copied
                } else {
                    // A string without contiguous UTF-8 (bridged from an `NSString` on Apple platforms).
                    for byte in part.utf8 {
                        // `utf8.count` counted these bytes; a mismatch must trap, not overrun.
                        precondition(offset < buffer.count, "a string's UTF-8 changed while it was copied")
                        buffer[offset] = byte
                        offset += 1
                    }
                }
            }
            return offset
        }
    }
}
