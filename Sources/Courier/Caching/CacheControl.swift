import HTTPTypes

/// The `Cache-Control` directives of a request or a response (RFC 9111 §5.2), read leniently:
/// unknown directives are ignored, names are case-insensitive, values may be quoted.
///
/// Hostile or broken values never make a response fresher than the server meant: a
/// `max-age` that is negative, not a number, or given twice with different values makes the
/// response stale (§4.2.1), and a delta-seconds value too large to represent is read as
/// 2,147,483,648 seconds (§1.2.2).
///
/// Hand-written: swift-http-types carries the field but does not parse its directives.
package struct CacheControl: Sendable, Equatable {
    /// The largest delta-seconds value RFC 9111 asks a cache to keep (2^31).
    package static let largestDeltaSeconds = 2_147_483_648

    package var noStore = false
    package var noCache = false
    package var isPrivate = false
    package var isPublic = false
    package var mustRevalidate = false
    package var onlyIfCached = false
    /// `max-age`, when present and valid.
    package var maxAge: Int?
    /// `max-age` was present but invalid (negative, not a number, conflicting duplicates):
    /// the response is stale.
    package var maxAgeIsInvalid = false
    /// `max-stale`: `Int.max` when given without a value ("any staleness").
    package var maxStale: Int?
    package var minFresh: Int?
    /// RFC 5861 `stale-while-revalidate`.
    package var staleWhileRevalidate: Int?
    /// RFC 5861 `stale-if-error`.
    package var staleIfError: Int?

    /// Reads every `Cache-Control` field of `fields`.
    package init(_ fields: HTTPFields) {
        for field in fields where field.name == .cacheControl {
            parse(field.value)
        }
    }

    /// Reads one field value.
    package init(_ value: String) {
        parse(value)
    }

    package init() {}

    private mutating func parse(_ value: String) {
        var value = value
        // Parsed over the UTF-8 bytes: this runs on every cached request (request and stored
        // response), and Character-by-Character parsing with lowercased names cost more than the
        // rest of a cache hit. Directive names are ASCII; a non-ASCII name matches none of them,
        // as it would after Unicode lowercasing (no known name contains a `k`, the one letter
        // a non-ASCII character — the Kelvin sign — lowercases to).
        value.withUTF8 { bytes in
            for directive in Directives(bytes) { apply(directive) }
        }
        if maxAgeIsInvalid { maxAge = nil }
    }

    private mutating func apply(_ directive: Directive) {
        let value = directive.value
        switch directive.name {
        case .noStore: noStore = true
        case .noCache: noCache = true          // a field-name list is treated as unqualified (§5.2.2.4 allows it)
        case .private: isPrivate = true
        case .public: isPublic = true
        case .mustRevalidate, .proxyRevalidate: mustRevalidate = true
        case .onlyIfCached: onlyIfCached = true
        case .maxAge:
            let seconds = value.flatMap(Self.deltaSeconds)
            switch (seconds, maxAge) {
            case (nil, _): maxAgeIsInvalid = true
            case (let value?, nil) where !maxAgeIsInvalid: maxAge = value
            case (let value?, let earlier?) where value != earlier: maxAgeIsInvalid = true
            default: break
            }
        case .maxStale:
            if let value {
                if let seconds = Self.deltaSeconds(value) { maxStale = seconds }
            } else {
                maxStale = Int.max
            }
        case .minFresh: minFresh = value.flatMap(Self.deltaSeconds) ?? minFresh
        case .staleWhileRevalidate: staleWhileRevalidate = value.flatMap(Self.deltaSeconds) ?? staleWhileRevalidate
        case .staleIfError: staleIfError = value.flatMap(Self.deltaSeconds) ?? staleIfError
        case nil: break
        }
    }

    /// A non-negative decimal integer, capped at 2^31; `nil` for anything else.
    package static func deltaSeconds<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            if value < largestDeltaSeconds { value = value * 10 + Int(byte - 0x30) }
        }
        return min(value, largestDeltaSeconds)
    }

    package static func deltaSeconds(_ text: Substring) -> Int? { deltaSeconds(text.utf8) }

    package static func deltaSeconds(_ text: String) -> Int? { deltaSeconds(text.utf8) }
}

/// The directive names Courier acts on.
private enum DirectiveName: CaseIterable {
    case noStore, noCache, `private`, `public`, mustRevalidate, proxyRevalidate, onlyIfCached
    case maxAge, maxStale, minFresh, staleWhileRevalidate, staleIfError

    var text: StaticString {
        switch self {
        case .noStore: "no-store"
        case .noCache: "no-cache"
        case .private: "private"
        case .public: "public"
        case .mustRevalidate: "must-revalidate"
        case .proxyRevalidate: "proxy-revalidate"
        case .onlyIfCached: "only-if-cached"
        case .maxAge: "max-age"
        case .maxStale: "max-stale"
        case .minFresh: "min-fresh"
        case .staleWhileRevalidate: "stale-while-revalidate"
        case .staleIfError: "stale-if-error"
        }
    }

    /// The known name `bytes` spell, compared ASCII case-insensitively.
    init?(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        for name in Self.allCases where name.text.utf8CodeUnitCount == bytes.count {
            let text = UnsafeBufferPointer(start: name.text.utf8Start, count: name.text.utf8CodeUnitCount)
            if zip(text, bytes).allSatisfy({ $0 == Self.lowered($1) }) {
                self = name
                return
            }
        }
        return nil
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (byte &- 0x41) < 26 ? byte | 0x20 : byte
    }
}

/// One directive of a field value: its name, and its value without quotes.
private struct Directive {
    var name: DirectiveName?
    var value: Slice<UnsafeBufferPointer<UInt8>>?
}

/// The directives of a field value's bytes, split at commas outside quoted strings, each
/// trimmed of spaces and tabs; empty ones skipped.
private struct Directives: Sequence, IteratorProtocol {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func next() -> Directive? {
        while index < bytes.count {
            var end = index
            var inQuotes = false
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") { inQuotes.toggle() } else if byte == UInt8(ascii: ","), !inQuotes { break }
                end += 1
            }
            let part = trimmed(index..<end)
            index = end + 1
            guard !part.isEmpty else { continue }
            guard let equals = bytes[part].firstIndex(of: UInt8(ascii: "=")) else {
                return Directive(name: DirectiveName(bytes[part]), value: nil)
            }
            let name = trimmed(part.lowerBound..<equals)
            var value = trimmed(equals + 1..<part.upperBound)
            if value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\""), bytes[value.upperBound - 1] == UInt8(ascii: "\"") {
                value = value.lowerBound + 1..<value.upperBound - 1
            }
            return Directive(name: DirectiveName(bytes[name]), value: bytes[value])
        }
        return nil
    }

    private func trimmed(_ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
        while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
        return lower..<upper
    }
}
