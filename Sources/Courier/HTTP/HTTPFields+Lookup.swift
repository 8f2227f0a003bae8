import HTTPTypes

// Lookups by name on the request path, written by hand: `HTTPFields`' own subscript joins the
// values through a lazy map whose generic metadata the runtime looks up on every call; the loop
// below costs a tenth of a subscript read (`courier-bench --micro --path cache-revalidation`).
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
    /// replacement whose name is not there yet (or is repeated in `replacements`) is appended —
    /// while there is room: a value at `HTTPFields`' capacity keeps its fields rather than trap
    /// (see ``appendIfRoom(_:)``).
    ///
    /// Written out because `HTTPFields`' name subscript setter scans and rebuilds once per name,
    /// and building a new `HTTPFields` goes through `RangeReplaceableCollection`'s unspecialized
    /// defaults once per field. A replaced field is set through the position subscript, which
    /// costs next to nothing. Linear in the fields and the replacements together: a hostile head
    /// of tens of thousands of fields (or a `304` carrying as many) costs one pass, not one per field.
    package mutating func replace(with replacements: [HTTPField]) {
        // A few replacements (what Courier's middleware sets): compare names directly. Many (a
        // `304` merged into a stored head): index the names first.
        if replacements.count > 8 { return replaceMany(replacements) }
        // Where each replacement was placed (`nil`: to be appended).
        var placedAt: [Int?] = []
        placedAt.reserveCapacity(replacements.count)
        var laterDuplicates = false
        for (offset, replacement) in replacements.enumerated() {
            let name = replacement.name
            let repeated = replacements[..<offset].contains { $0.name.isSame(as: name) }
            guard !repeated, let first = firstIndex(where: { $0.name.isSame(as: name) }) else {
                placedAt.append(nil)
                continue
            }
            self[first] = replacement
            placedAt.append(first)
            // Further fields of the same name, rare, go below in one pass.
            if !laterDuplicates { laterDuplicates = self[(first + 1)...].contains { $0.name.isSame(as: name) } }
        }
        if laterDuplicates {
            var kept = HTTPFields()
            kept.reserveCapacity(count)
            for (position, field) in enumerated() {
                let duplicate = placedAt.contains { placed in
                    guard let placed else { return false }
                    return placed != position && self[placed].name.isSame(as: field.name)
                }
                if !duplicate { kept.append(field) }
            }
            self = kept
        }
        for (offset, replacement) in replacements.enumerated() where placedAt[offset] == nil {
            appendIfRoom(replacement)
        }
    }

    /// ``replace(with:)`` for many replacements, through a dictionary of names.
    private mutating func replaceMany(_ replacements: [HTTPField]) {
        // The first replacement of each name, by canonical name; later ones are appended.
        var firstReplacement: [String: HTTPField] = [:]
        for replacement in replacements where firstReplacement[replacement.name.canonicalName] == nil {
            firstReplacement[replacement.name.canonicalName] = replacement
        }
        var kept = HTTPFields()
        kept.reserveCapacity(count)
        var placed: Set<String> = []
        for field in self {
            let name = field.name.canonicalName
            guard let replacement = firstReplacement[name] else { kept.append(field); continue }
            // The first field of a replaced name takes its replacement; the others go.
            if placed.insert(name).inserted { kept.append(replacement) }
        }
        // In order: the first replacement of a name not there before, and every repeated one.
        var seen: Set<String> = []
        for replacement in replacements {
            let name = replacement.name.canonicalName
            if !seen.insert(name).inserted || !placed.contains(name) { kept.appendIfRoom(replacement) }
        }
        self = kept
    }

    /// Sets the fields named `name` to one with `value` (see ``replace(with:)``).
    package mutating func replace(_ name: HTTPField.Name, with value: String) {
        replace(with: HTTPField(name: name, value: value))
    }

    /// Sets the fields named as `field` to it alone (see ``replace(with:)``): a field built
    /// once and kept (a fixed credential) is not validated again.
    package mutating func replace(with field: HTTPField) {
        if has(field.name) { replace(with: [field]) } else { appendIfRoom(field) }
    }
}

extension HTTPField.Name {
    /// `==`, with the lengths compared first: most names differ in length, and the length of a
    /// short string is read inline, while `==` calls into the runtime, and the loops above compare a name with every field of a head.
    @inline(__always)
    package func isSame(as other: HTTPField.Name) -> Bool {
        canonicalName.utf8.count == other.canonicalName.utf8.count && self == other
    }
}
