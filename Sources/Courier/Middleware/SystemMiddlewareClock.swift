import Foundation

/// A ``MiddlewareClock`` on real time: a cancellable `Task.sleep` and `Date()`.
public struct SystemMiddlewareClock: MiddlewareClock {
    /// Creates the clock.
    public init() {}

    /// Sleeps for `duration`; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
