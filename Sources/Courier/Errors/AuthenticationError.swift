import Foundation

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

    /// The kind and the provider's error, on one line (a `URLError` without its failing URL,
    /// see ``TransportError``).
    public var description: String { "\(kind): \(UnderlyingErrorText.describe(underlying))" }
}
