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

/// Supplies access tokens to ``AuthenticationMiddleware`` and renews them.
///
/// Courier calls ``token()`` when it needs a token for the first time, and ``refresh(rejected:)``
/// when the server answered `401` (or the token expired). The middleware's ``TokenRefresher``
/// makes sure `refresh` runs once for a burst of concurrent `401`s, never in parallel.
///
/// ```swift
/// struct SessionTokens: TokenProvider {
///     let store: TokenStore
///     func token() async throws -> AccessToken { try await store.load() }
///     func refresh(rejected: AccessToken) async throws -> AccessToken {
///         let fresh = try await store.api.refresh(using: store.refreshToken)
///         try await store.save(fresh)
///         return fresh
///     }
/// }
/// ```
public protocol TokenProvider: Sendable {
    /// The token to use now (from a keychain, a file, memory).
    func token() async throws -> AccessToken
    /// A new token to replace `rejected`, which the server refused or which expired.
    func refresh(rejected: AccessToken) async throws -> AccessToken
}

/// A ``TokenProvider`` made of two closures, for quick setups and tests.
///
/// ```swift
/// let tokens = ClosureTokenProvider(
///     token: { AccessToken(keychain.accessToken) },
///     refresh: { _ in try await auth.refresh() }
/// )
/// ```
public struct ClosureTokenProvider: TokenProvider {
    private let load: @Sendable () async throws -> AccessToken
    private let renew: @Sendable (AccessToken) async throws -> AccessToken

    /// Creates a provider from a loading and a refreshing closure.
    public init(
        token: @escaping @Sendable () async throws -> AccessToken,
        refresh: @escaping @Sendable (AccessToken) async throws -> AccessToken
    ) {
        self.load = token
        self.renew = refresh
    }

    /// Calls the loading closure.
    public func token() async throws -> AccessToken { try await load() }
    /// Calls the refreshing closure.
    public func refresh(rejected: AccessToken) async throws -> AccessToken { try await renew(rejected) }
}

/// Why ``AuthenticationMiddleware`` could not authenticate a request.
public struct AuthenticationError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The token provider could not supply a token.
        public static let tokenUnavailable = Kind("token unavailable")
        /// Refreshing the token failed; every request waiting for it fails with this error.
        public static let refreshFailed = Kind("token refresh failed")
        /// Loading or refreshing the token took longer than ``TokenRefresher/refreshTimeout``;
        /// the underlying error is a ``TokenRefreshTimeout``.
        public static let timedOut = Kind("token refresh timed out")
        /// The kind's name.
        public var description: String { name }
    }

    /// What failed.
    public var kind: Kind
    /// The provider's error.
    public var underlying: any Error

    /// Creates an error.
    public init(_ kind: Kind, underlying: any Error) {
        self.kind = kind
        self.underlying = underlying
    }

    /// The kind and the provider's error, on one line.
    public var description: String { "\(kind): \(underlying)" }
}

/// A token load or refresh that took longer than ``TokenRefresher/refreshTimeout``.
public struct TokenRefreshTimeout: Error, Sendable, CustomStringConvertible {
    /// What was taking too long: "refreshing the access token" or "loading the access token".
    public var operation: String
    /// The time limit that passed.
    public var limit: Duration

    /// Creates the error.
    public init(operation: String, limit: Duration) {
        self.operation = operation
        self.limit = limit
    }

    /// One line naming the operation and the limit.
    public var description: String { "\(operation) took longer than \(limit)" }
}
