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
/// A request's own deadline and idle timeout are not read from a time source: they are instants
/// of Swift's `ContinuousClock`, which the transport watches too (``RequestContext/deadline``).
public protocol TimeSource: Sendable {
    /// Waits for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// The current wall-clock time.
    func now() -> Date
}

extension TimeSource {
    /// The system's wall-clock time.
    public func now() -> Date { Date() }
}

extension TimeSource where Self == SystemTimeSource {
    /// Real time: `Task.sleep` and `Date()`.
    public static var system: SystemTimeSource { SystemTimeSource() }
}
