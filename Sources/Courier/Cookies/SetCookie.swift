import Foundation

/// One `Set-Cookie` header as parsed by ``SetCookieParser`` (RFC 6265 §5.2), before the jar
/// decides whether to store it (§5.3): the attributes as the server wrote them, each already
/// checked on its own.
package struct SetCookie: Sendable, Equatable {
    /// The cookie's name (never empty).
    package var name: String
    /// The cookie's value (may be empty).
    package var value: String
    /// The `Expires` date, when it parsed as a cookie date.
    package var expires: Date?
    /// The `Max-Age` in seconds (saturated to `Int64`'s range); zero or negative means "expire now".
    package var maxAge: Int64?
    /// The `Domain` attribute, lowercased, without its leading dot; `nil` when absent or empty.
    package var domain: String?
    /// The `Path` attribute when it starts with `/`; `nil` means the default path.
    package var path: String?
    /// `Secure`.
    package var isSecure = false
    /// `HttpOnly`.
    package var isHTTPOnly = false
    /// `SameSite`, when it is one of the three known values.
    package var sameSite: Cookie.SameSite?

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
