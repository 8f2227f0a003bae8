import Foundation

/// The one time source Courier reads: the wall-clock time, and waits.
///
/// Everything in Courier that tells the time or waits takes one (as `clock:`), so a test can
/// stand in for time: ``RetryMiddleware`` waits on it between attempts and turns a
/// `Retry-After` date into a delay with it, ``RetryBudget`` refills its reserve with it,
/// ``TokenRefresher`` checks ``AccessToken/expiresAt`` against it, ``CookieJar`` expires cookies
/// by it, ``CachingMiddleware`` and ``DiskCacheStore`` compute ages and freshness with it, and
/// the request signatures of CourierSigning stamp requests with it.
///
/// The default, ``SystemTimeSource`` (``system``), sleeps with `Task.sleep` (cancellable:
/// cancelling the task ends the wait at once with `CancellationError`) and reads `Date()`.
/// CourierTesting's `ManualClock` records the waits, returns at once and tells the time a test
/// sets, so nothing really sleeps:
///
/// ```swift
/// let clock = ManualClock()
/// let client = APIClient(configuration: configuration, transport: stub,
///                        middleware: [RetryMiddleware(clock: clock)])
/// _ = try await client.send(GetUser(id: "42"))
/// #expect(clock.sleeps == [.seconds(1)])
/// ```
///
/// Deadlines — a request's own (``RequestContext/deadline``), an idle timeout, a token
/// refresh's limit, a coalesced request's wait — are instants of Swift's `ContinuousClock`,
/// which the transport watches too; a time source waits for them with ``sleep(until:)``, on real
/// time unless it says otherwise (`ManualClock` does not: test deadlines with a short timeout).
public protocol TimeSource: Sendable {
    /// Waits for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// Waits until `deadline` of the continuous clock; throws `CancellationError` when the task
    /// is cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
    /// The current wall-clock time.
    func now() -> Date
}

extension TimeSource {
    /// The system's wall-clock time.
    public func now() -> Date { Date() }

    /// Waits on the continuous clock, in real time.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .continuous)
    }
}

extension TimeSource where Self == SystemTimeSource {
    /// Real time: `Task.sleep` and `Date()`.
    public static var system: SystemTimeSource { SystemTimeSource() }
}
