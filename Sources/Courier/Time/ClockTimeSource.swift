import Foundation

/// A ``TimeSource`` that sleeps on any Swift `Clock` whose durations are `Duration` (a
/// `ContinuousClock`, or a test clock from a library such as swift-clocks) and reads `Date()`.
///
/// ```swift
/// let retry = RetryMiddleware(clock: ClockTimeSource(ContinuousClock()))
/// ```
public struct ClockTimeSource<C: Clock>: TimeSource where C.Duration == Duration {
    private let clock: C

    /// Wraps `clock`.
    public init(_ clock: C) { self.clock = clock }

    /// Sleeps for `duration` on the wrapped clock; throws `CancellationError` when the task is
    /// cancelled.
    public func sleep(for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}
