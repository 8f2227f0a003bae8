import HTTPTypes

/// How the client follows redirects. Courier follows them itself, the same on every transport.
///
/// Across origins (scheme, host or port differ) every header that is secret by Courier's one
/// list — ``Redaction/isSensitive(header:extra:)``: `Authorization`, `Cookie`, API-key, token and
/// signature headers, the client's ``APIConfiguration/sensitiveHeaders``, what middleware added,
/// and the ``sensitiveHeaders`` here — is removed, and stays removed for the rest of the chain.
/// `303`, and `301`/`302` after a `POST`, become a `GET` without body or `Content-*` headers.
/// A redirect to another origin that would resend the body of an authenticated or signed
/// request (a `307`/`308`, or a `301`/`302` that keeps a `PUT`'s method) is refused unless
/// ``allowsCrossOriginBodyRedirects`` is set. Conditional fields (`If-None-Match`…) do not go to
/// another origin either.
/// An `https` → `http` redirect is refused unless ``allowsInsecureRedirects`` is set.
public struct RedirectPolicy: Sendable, Hashable {
    /// How many redirects are followed before failing. `0` means none are followed and the
    /// `3xx` response is returned as it is.
    public var maxRedirects: Int
    /// Whether an `https` → `http` redirect is allowed. Default: `false`.
    public var allowsInsecureRedirects: Bool
    /// Headers removed, beside the standard credential headers, when a redirect leaves the
    /// origin (API keys, custom tokens). Middleware add theirs to ``RequestContext/sensitiveHeaders``.
    public var sensitiveHeaders: Set<HTTPField.Name>
    /// Whether a redirect to another origin may resend the body of a request that
    /// carries credentials or a signature (its secret headers are still removed). Default:
    /// `false` — the other origin could replay a signed request; the redirect fails with a
    /// ``RedirectError`` instead.
    public var allowsCrossOriginBodyRedirects: Bool

    /// Creates a policy.
    public init(maxRedirects: Int = 10, allowsInsecureRedirects: Bool = false, sensitiveHeaders: Set<HTTPField.Name> = [],
                allowsCrossOriginBodyRedirects: Bool = false) {
        self.maxRedirects = maxRedirects
        self.allowsInsecureRedirects = allowsInsecureRedirects
        self.sensitiveHeaders = sensitiveHeaders
        self.allowsCrossOriginBodyRedirects = allowsCrossOriginBodyRedirects
    }

    /// Up to 10 redirects, no downgrade to `http`.
    public static let `default` = RedirectPolicy()
    /// Redirects are not followed: the `3xx` response is returned.
    public static let none = RedirectPolicy(maxRedirects: 0)

    /// The standard credential headers (a part of ``Redaction/sensitiveHeaders``, which is the
    /// list redirects use).
    public static let credentialHeaders: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]
}
