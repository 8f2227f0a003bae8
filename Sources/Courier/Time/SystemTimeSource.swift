import Foundation

/// A ``TimeSource`` on real time: a cancellable `Task.sleep` and `Date()`.
public struct SystemTimeSource: TimeSource {
    /// Creates the time source.
    public init() {}

    /// Sleeps for `duration`; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
