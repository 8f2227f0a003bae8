// HTTP's optional whitespace (RFC 9110 §5.6.3: spaces and horizontal tabs) around a field's
// parts, trimmed by looking at bytes. Foundation's `trimmingCharacters(in: .whitespaces)` goes
// through `NSString` on Linux, so costly that two calls made a `304` revalidation cost more
// than the `200` it saves.
extension Substring {
    /// Without leading and trailing spaces and tabs. Other whitespace (a no-break space, a line
    /// break) is kept: HTTP's syntax has none.
    package func trimmingSpacesAndTabs() -> Substring {
        let utf8 = self.utf8
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !isBlank($0) }), let last = utf8.lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        // Both ends sit next to an ASCII byte or at an end of the text, so they fall on
        // boundaries of Unicode scalars.
        return self[first..<utf8.index(after: last)]
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (see `Substring.trimmingSpacesAndTabs()`).
    package func trimmingSpacesAndTabs() -> Substring {
        self[...].trimmingSpacesAndTabs()
    }
}
