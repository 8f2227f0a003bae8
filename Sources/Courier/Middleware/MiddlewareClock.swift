import Foundation

/// The one time source Courier's middleware read: ``RetryMiddleware`` waits on it and turns a
/// `Retry-After` date into a delay with it, ``RetryBudget`` refills its reserve with it, and
/// ``TokenRefresher`` checks ``AccessToken/expiresAt`` against it.
///
/// The default, ``SystemMiddlewareClock`` (``system``), sleeps with `Task.sleep` (cancellable:
/// cancelling the task ends the wait at once with `CancellationError`) and reads `Date()`. Tests
/// inject a clock that records the delays, returns at once and tells the time they choose, so
/// nothing really sleeps:
///
/// ```swift
/// final class TestClock: MiddlewareClock {
///     let delays = Locked<[Duration]>([])
///     let current = Locked(Date(timeIntervalSince1970: 1_700_000_000))
///     func sleep(for duration: Duration) async throws { delays.withLock { $0.append(duration) } }
///     func now() -> Date { current.current }
/// }
/// ```
public protocol MiddlewareClock: Sendable {
    /// Waits for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// The current wall-clock time.
    func now() -> Date
}

extension MiddlewareClock {
    /// The system's wall-clock time.
    public func now() -> Date { Date() }
}

extension MiddlewareClock where Self == SystemMiddlewareClock {
    /// Real time: `Task.sleep` and `Date()`.
    public static var system: SystemMiddlewareClock { SystemMiddlewareClock() }
}

/// A ``MiddlewareClock`` on real time: a cancellable `Task.sleep` and `Date()`.
public struct SystemMiddlewareClock: MiddlewareClock {
    /// Creates the clock.
    public init() {}

    /// Sleeps for `duration`; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// A ``MiddlewareClock`` that sleeps on any Swift `Clock` whose durations are `Duration` (a
/// `ContinuousClock`, or a test clock from a library such as swift-clocks) and reads `Date()`.
///
/// ```swift
/// let retry = RetryMiddleware(clock: ClockMiddlewareClock(ContinuousClock()))
/// ```
public struct ClockMiddlewareClock<C: Clock>: MiddlewareClock where C.Duration == Duration {
    private let clock: C

    /// Wraps `clock`.
    public init(_ clock: C) { self.clock = clock }

    /// Sleeps for `duration` on the wrapped clock; throws `CancellationError` when the task is
    /// cancelled.
    public func sleep(for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }
}

/// The former name of ``MiddlewareClock``.
@available(*, deprecated, renamed: "MiddlewareClock")
public typealias RetryClock = MiddlewareClock
/// The former name of ``SystemMiddlewareClock``.
@available(*, deprecated, renamed: "SystemMiddlewareClock")
public typealias SystemRetryClock = SystemMiddlewareClock
/// The former name of ``ClockMiddlewareClock``.
@available(*, deprecated, renamed: "ClockMiddlewareClock")
public typealias ClockRetryClock = ClockMiddlewareClock
