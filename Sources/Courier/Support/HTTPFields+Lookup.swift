import HTTPTypes

// Lookups by name on the request path, written by hand: `HTTPFields`' own subscript joins the
// values through a lazy map whose generic metadata the runtime looks up on every call. Measured
// with callgrind (`courier-bench --micro --path cache-revalidation`), a subscript read cost
// ≈ 1,600 instructions for a head of five fields; the loop below costs a tenth of that.
extension HTTPFields {
    /// The value of the fields named `name`, joined with ", " when there are several — what
    /// `self[name]` returns, for every name but `Cookie` (whose values HTTPTypes joins with "; ").
    package func value(of name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name.isSame(as: name) {
            if let earlier = found { found = earlier + ", " + field.value } else { found = field.value }
        }
        return found
    }

    /// How many fields are named `name`.
    package func count(of name: HTTPField.Name) -> Int {
        var count = 0
        for field in self where field.name.isSame(as: name) { count += 1 }
        return count
    }

    /// Whether a field named `name` is present.
    package func has(_ name: HTTPField.Name) -> Bool {
        contains { $0.name.isSame(as: name) }
    }

    /// Sets the fields named like those of `replacements` to them: each replacement takes the
    /// place of the first field of its name, other fields of that name are removed, and a
    /// replacement whose name is not there yet (or is repeated in `replacements`) is appended.
    ///
    /// Written out because `HTTPFields`' name subscript setter scans and rebuilds once per name,
    /// and building a new `HTTPFields` goes through `RangeReplaceableCollection`'s unspecialized
    /// defaults once per field (callgrind: ≈ 650 instructions per appended field, ≈ 1,900 for
    /// one `replaceSubrange` call with an array). A replaced field is set through the position
    /// subscript, which costs next to nothing.
    package mutating func replace(with replacements: [HTTPField]) {
        for (offset, replacement) in replacements.enumerated() {
            let name = replacement.name
            let repeated = replacements[..<offset].contains { $0.name.isSame(as: name) }
            guard !repeated, let first = firstIndex(where: { $0.name.isSame(as: name) }) else {
                append(replacement)
                continue
            }
            self[first] = replacement
            // Further fields of the same name, rare, go.
            var position = first + 1
            while position < endIndex {
                if self[position].name.isSame(as: name) { remove(at: position) } else { position += 1 }
            }
        }
    }

    /// Sets the fields named `name` to one with `value` (see ``replace(with:)``).
    package mutating func replace(_ name: HTTPField.Name, with value: String) {
        replace(with: HTTPField(name: name, value: value))
    }

    /// Sets the fields named as `field` to it alone (see ``replace(with:)``): a field built
    /// once and kept (a fixed credential) is not validated again.
    package mutating func replace(with field: HTTPField) {
        if has(field.name) { replace(with: [field]) } else { append(field) }
    }
}

extension HTTPField.Name {
    /// `==`, with the lengths compared first: most names differ in length, and the length of a
    /// short string is read inline, while `==` calls into the runtime (≈ 40 instructions a pair,
    /// callgrind), and the loops above compare a name with every field of a head.
    @inline(__always)
    package func isSame(as other: HTTPField.Name) -> Bool {
        canonicalName.utf8.count == other.canonicalName.utf8.count && self == other
    }
}
