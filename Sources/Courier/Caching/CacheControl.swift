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
        // Read as bytes by the shared tokenizer (HTTPParameters): this runs on every cached
        // request (request and stored response). Directive names are ASCII; a non-ASCII name
        // matches none of them, as it would after Unicode lowercasing (no known name contains a
        // `k`, the one letter a non-ASCII character — the Kelvin sign — lowercases to).
        for directive in HTTPParameters(value, separator: ",") {
            apply(DirectiveName(directive), value: directive.value)
        }
        if maxAgeIsInvalid { maxAge = nil }
    }

    private mutating func apply(_ name: DirectiveName?, value: Substring?) {
        switch name {
        case .noStore: noStore = true
        case .noCache: noCache = true          // a field-name list is treated as unqualified (§5.2.2.4 allows it)
        case .private: isPrivate = true
        case .public: isPublic = true
        case .mustRevalidate, .proxyRevalidate: mustRevalidate = true
        case .onlyIfCached: onlyIfCached = true
        case .maxAge:
            let seconds = value.flatMap { Self.deltaSeconds($0) }
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
        case .minFresh: minFresh = value.flatMap { Self.deltaSeconds($0) } ?? minFresh
        case .staleWhileRevalidate: staleWhileRevalidate = value.flatMap { Self.deltaSeconds($0) } ?? staleWhileRevalidate
        case .staleIfError: staleIfError = value.flatMap { Self.deltaSeconds($0) } ?? staleIfError
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

    /// The known name `directive` has, compared ASCII case-insensitively.
    init?(_ directive: HTTPParameters.Item) {
        guard let name = Self.allCases.first(where: { directive.nameIs($0.text) }) else { return nil }
        self = name
    }
}
