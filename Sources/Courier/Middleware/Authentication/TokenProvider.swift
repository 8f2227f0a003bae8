import Foundation

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
