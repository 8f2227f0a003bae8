// Byte searches in a string's UTF-8, over its contiguous storage. `utf8.firstIndex(of:)` and
// `utf8.contains(_:)` walk the view through its generic iterator, several times the cost of a
// scan of the buffer per byte. Request paths and URLs are searched this way several times per request.
extension String {
    /// The index of the first occurrence of the ASCII byte `byte` in the UTF-8 view.
    package func firstIndex(ofByte byte: UInt8) -> String.Index? {
        let offset = utf8.withContiguousStorageIfAvailable { $0.firstIndex(of: byte) } ?? utf8.firstIndex(of: byte).map { utf8.distance(from: utf8.startIndex, to: $0) }
        return offset.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// Whether the UTF-8 view contains the byte `byte`.
    package func containsByte(_ byte: UInt8) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? utf8.contains(byte)
    }
}
