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
        for directive in Self.directives(in: value) {
            let name = directive.name
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true          // a field-name list is treated as unqualified (§5.2.2.4 allows it)
            case "private": isPrivate = true
            case "public": isPublic = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "only-if-cached": onlyIfCached = true
            case "max-age":
                let seconds = directive.value.flatMap(Self.deltaSeconds)
                switch (seconds, maxAge) {
                case (nil, _): maxAgeIsInvalid = true
                case (let value?, nil) where !maxAgeIsInvalid: maxAge = value
                case (let value?, let earlier?) where value != earlier: maxAgeIsInvalid = true
                default: break
                }
            case "max-stale":
                if let text = directive.value {
                    if let seconds = Self.deltaSeconds(text) { maxStale = seconds }
                } else {
                    maxStale = Int.max
                }
            case "min-fresh": minFresh = directive.value.flatMap(Self.deltaSeconds) ?? minFresh
            case "stale-while-revalidate": staleWhileRevalidate = directive.value.flatMap(Self.deltaSeconds) ?? staleWhileRevalidate
            case "stale-if-error": staleIfError = directive.value.flatMap(Self.deltaSeconds) ?? staleIfError
            default: break
            }
        }
        if maxAgeIsInvalid { maxAge = nil }
    }

    /// A non-negative decimal integer, capped at 2^31; `nil` for anything else.
    package static func deltaSeconds(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for byte in text.utf8 {
            value = value * 10 + Int(byte - 0x30)
            if value >= largestDeltaSeconds { return largestDeltaSeconds }
        }
        return value
    }

    package static func deltaSeconds(_ text: String) -> Int? { deltaSeconds(Substring(text)) }

    /// The directives of one field value: comma-separated `name` or `name=value`, where a value
    /// is a token or a quoted string (commas inside quotes do not split).
    static func directives(in value: String) -> [(name: String, value: Substring?)] {
        var result: [(name: String, value: Substring?)] = []
        var parts: [Substring] = []
        var start = value.startIndex
        var inQuotes = false
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if character == "\"" { inQuotes.toggle() }
            if character == ",", !inQuotes {
                parts.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        parts.append(value[start..<value.endIndex])
        for part in parts {
            let trimmed = part.trimmingSpaces
            guard !trimmed.isEmpty else { continue }
            if let equals = trimmed.firstIndex(of: "=") {
                let name = trimmed[..<equals].trimmingSpaces.lowercased()
                var raw = trimmed[trimmed.index(after: equals)...].trimmingSpaces
                if raw.count >= 2, raw.first == "\"", raw.last == "\"" { raw = raw.dropFirst().dropLast() }
                result.append((name, raw))
            } else {
                result.append((trimmed.lowercased(), nil))
            }
        }
        return result
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
