import Foundation

/// An access token and, when known, when it expires.
///
/// ```swift
/// let token = AccessToken("eyJhbGciOi…", expiresAt: Date().addingTimeInterval(3600))
/// ```
public struct AccessToken: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The token itself, as sent after `Bearer `.
    public var value: String
    /// When the token stops being valid; `nil` when unknown (it is then used until a 401).
    public var expiresAt: Date?

    /// Creates a token.
    public init(_ value: String, expiresAt: Date? = nil) {
        self.value = value
        self.expiresAt = expiresAt
    }

    /// A token without a known expiry, written as a string literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// Whether the token has expired, or will within `leeway` of `now`.
    public func isExpired(at now: Date, leeway: TimeInterval = 30) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= leeway
    }

    /// Never shows the value (tokens end up in logs through string interpolation).
    public var description: String { "AccessToken(\(Redaction.placeholder))" }
}
