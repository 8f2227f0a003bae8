import Foundation

/// A cookie as a ``CookieJar`` stores it (RFC 6265 §5.3): a name and value, the host or domain
/// it belongs to, the path it is scoped to, its flags and when it expires.
///
/// The jar builds cookies from the `Set-Cookie` headers of responses; you read them with
/// ``CookieJar/cookies`` or ``CookieJar/cookies(for:)``. Printing a cookie never shows its value
/// (``description`` redacts it), so a cookie can go into a log line safely.
public struct Cookie: Sendable, Hashable, Codable {
    /// The cookie's name, as the server sent it.
    public var name: String
    /// The cookie's value, as the server sent it (quotes included, if any).
    public var value: String
    /// The host (for a host-only cookie) or the domain (for a domain cookie) the cookie belongs
    /// to: lowercased, without a leading dot; an IPv6 address without brackets.
    public var domain: String
    /// Whether the cookie is sent only to ``domain`` itself (no `Domain` attribute, or an IP
    /// address) rather than to ``domain`` and its subdomains.
    public var isHostOnly: Bool
    /// The path the cookie is scoped to: sent to this path and the paths below it.
    public var path: String
    /// Whether the cookie is sent only over a secure connection (`Secure`).
    public var isSecure: Bool
    /// Whether the server marked the cookie `HttpOnly`. Courier is not a browser and has no
    /// scripts to hide it from: an `HttpOnly` cookie is stored and sent like any other.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, stored as sent (`nil` when absent or unknown). Courier has no
    /// browsing context to apply it to, so it does not change what is sent.
    public var sameSite: SameSite?
    /// When the cookie expires; `nil` for a session cookie, which lives as long as the jar
    /// (and is persisted only when the jar is asked to: ``CookieJar/init(persistingTo:persistsSessionCookies:limits:publicSuffixes:clock:logger:)``).
    public var expiresAt: Date?
    /// When the cookie was first stored (kept when the server replaces the value); cookies with
    /// the same path length are sent oldest first.
    public var createdAt: Date
    /// When the cookie was last stored or sent; the least recently used cookies are evicted
    /// first when a limit is reached.
    public var lastAccessedAt: Date

    /// Creates a cookie. The jar validates cookies it receives from servers; a cookie made here
    /// is for comparisons and tests.
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/",
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSite? = nil, expiresAt: Date? = nil,
        createdAt: Date = Date(), lastAccessedAt: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.lastAccessedAt = lastAccessedAt ?? createdAt
    }

    /// Whether the cookie has no expiry date and lives only as long as the jar.
    public var isSessionCookie: Bool { expiresAt == nil }

    /// Whether the cookie has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date
    }

    /// Whether this cookie and `other` are the same cookie for the jar, whatever their values:
    /// the same name, domain and path (RFC 6265 §5.3 step 11) and both host-only or both not. As
    /// in browsers, a host-only `sid` and a `sid` for the domain live side by side (both are sent),
    /// and removing one (`Max-Age=0` with or without `Domain`) leaves the other.
    func hasSameIdentity(as other: Cookie) -> Bool {
        name == other.name && domain == other.domain && path == other.path && isHostOnly == other.isHostOnly
    }

    /// `name=value` as it goes into a `Cookie` header.
    var pair: String { name + "=" + value }
}

extension Cookie: CustomStringConvertible {
    /// The cookie with its value redacted: `session=<redacted>; Domain=example.com; Path=/; Secure`.
    public var description: String {
        var text = name + "=" + Redaction.placeholder
        text += isHostOnly ? "; Host=" + domain : "; Domain=" + domain
        text += "; Path=" + path
        if let expiresAt { text += "; Expires=" + expiresAt.formatted(.iso8601) }
        if isSecure { text += "; Secure" }
        if isHTTPOnly { text += "; HttpOnly" }
        if let sameSite { text += "; SameSite=" + sameSite.rawValue }
        return text
    }
}
