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
/// final class TestClock: MiddlewareClock, @unchecked Sendable {   // every access holds `lock`
///     private let lock = NSLock()
///     private var waits: [Duration] = []
///     private var time = Date(timeIntervalSince1970: 1_700_000_000)
///     var delays: [Duration] { lock.withLock { waits } }
///     func sleep(for duration: Duration) async throws { lock.withLock { waits.append(duration) } }
///     func now() -> Date { lock.withLock { time } }
///     func advance(by seconds: TimeInterval) { lock.withLock { time += seconds } }
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

/// The former name of ``MiddlewareClock``.
@available(*, deprecated, renamed: "MiddlewareClock")
public typealias RetryClock = MiddlewareClock
/// The former name of ``SystemMiddlewareClock``.
@available(*, deprecated, renamed: "SystemMiddlewareClock")
public typealias SystemRetryClock = SystemMiddlewareClock
/// The former name of ``ClockMiddlewareClock``.
@available(*, deprecated, renamed: "ClockMiddlewareClock")
public typealias ClockRetryClock = ClockMiddlewareClock
