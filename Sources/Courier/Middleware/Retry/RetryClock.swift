import Foundation

/// Where ``RetryMiddleware`` waits between attempts and reads the time for `Retry-After` dates.
///
/// The default, ``system``, sleeps with `Task.sleep` (cancellable: cancelling the task ends the
/// wait at once with `CancellationError`). Tests inject a clock that records the delays and
/// returns immediately, so nothing really sleeps:
///
/// ```swift
/// struct RecordingClock: RetryClock {
///     let delays = Locked<[Duration]>([])
///     func sleep(for duration: Duration) async throws { delays.withLock { $0.append(duration) } }
///     func now() -> Date { Date(timeIntervalSince1970: 1_700_000_000) }
/// }
/// ```
public protocol RetryClock: Sendable {
    /// Waits for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// The current wall-clock time, used to turn a `Retry-After` HTTP date into a delay.
    func now() -> Date
}

extension RetryClock {
    /// The system's wall-clock time.
    public func now() -> Date { Date() }
}

extension RetryClock where Self == SystemRetryClock {
    /// Real time: `Task.sleep` and `Date()`.
    public static var system: SystemRetryClock { SystemRetryClock() }
}

/// A ``RetryClock`` on real time: a cancellable `Task.sleep` and `Date()`.
public struct SystemRetryClock: RetryClock {
    /// Creates the clock.
    public init() {}

    /// Sleeps for `duration`; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// A ``RetryClock`` over any Swift `Clock` whose durations are `Duration` (a
/// `ContinuousClock`, or a test clock from a library such as swift-clocks).
///
/// ```swift
/// let retry = RetryMiddleware(clock: ClockRetryClock(ContinuousClock()))
/// ```
public struct ClockRetryClock<C: Clock>: RetryClock where C.Duration == Duration {
    private let clock: C

    /// Wraps `clock`.
    public init(_ clock: C) { self.clock = clock }

    /// Sleeps for `duration`; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}
