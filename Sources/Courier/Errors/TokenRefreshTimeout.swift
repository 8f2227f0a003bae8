import Foundation

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
