extension Cookie {
    /// A cookie's `SameSite` attribute. Courier stores it and hands it back, but has no
    /// browsing context (no "site for cookies"), so it does not change which requests carry the
    /// cookie.
    public enum SameSite: String, Sendable, Hashable, Codable, CaseIterable {
        /// `SameSite=Strict`.
        case strict = "Strict"
        /// `SameSite=Lax`.
        case lax = "Lax"
        /// `SameSite=None`.
        case none = "None"

        /// Parses an attribute value case-insensitively; `nil` for anything else (an unknown
        /// value is ignored, as RFC 6265bis asks).
        init?(attributeValue: Substring) {
            guard attributeValue.utf8.count <= 6 else { return nil }
            switch attributeValue.lowercased() {
            case "strict": self = .strict
            case "lax": self = .lax
            case "none": self = .none
            default: return nil
            }
        }
    }
}
