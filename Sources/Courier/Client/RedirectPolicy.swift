import HTTPTypes

/// How the client follows redirects. Courier follows them itself, the same on every transport.
///
/// Across origins (scheme, host or port differ) `Authorization`, `Proxy-Authorization`,
/// `Cookie` and the ``sensitiveHeaders`` are removed and stay removed for the rest of the chain.
/// `303`, and `301`/`302` after a `POST`, become a `GET` without body or `Content-*` headers.
/// An `https` → `http` redirect is refused unless ``allowsInsecureRedirects`` is set.
public struct RedirectPolicy: Sendable, Hashable {
    /// How many redirects are followed before failing. `0` means none are followed and the
    /// `3xx` response is returned as it is.
    public var maxRedirects: Int
    /// Whether an `https` → `http` redirect is allowed. Default: `false`.
    public var allowsInsecureRedirects: Bool
    /// Headers removed, beside the standard credential headers, when a redirect leaves the
    /// origin (API keys, custom tokens). Authentication middleware adds theirs here.
    public var sensitiveHeaders: Set<HTTPField.Name>

    /// Creates a policy.
    public init(maxRedirects: Int = 10, allowsInsecureRedirects: Bool = false, sensitiveHeaders: Set<HTTPField.Name> = []) {
        self.maxRedirects = maxRedirects
        self.allowsInsecureRedirects = allowsInsecureRedirects
        self.sensitiveHeaders = sensitiveHeaders
    }

    /// Up to 10 redirects, no downgrade to `http`.
    public static let `default` = RedirectPolicy()
    /// Redirects are not followed: the `3xx` response is returned.
    public static let none = RedirectPolicy(maxRedirects: 0)

    /// Headers that never cross an origin.
    public static let credentialHeaders: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]
}

/// Why Courier stopped following a redirect.
public struct RedirectError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var reason: String
    /// The `Location` that was refused, if any (credentials removed).
    public var location: String?

    public var description: String {
        location.map { "redirect to '\($0)' refused: \(reason)" } ?? "redirect refused: \(reason)"
    }
}
