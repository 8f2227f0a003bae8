import Foundation

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
