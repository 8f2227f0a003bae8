import Courier
import Foundation

/// A `TimeSource` a test moves by hand: its waits return at once, and its time moves
/// only when the test says.
///
/// Hand it to anything that takes a `clock:` — `RetryMiddleware`,
/// `RetryBudget`, `TokenRefresher`, `CookieJar`,
/// `CachingMiddleware`, `DiskCacheStore`, a request signature — and check
/// what it waited for, or move time past an expiry, without the test sleeping:
///
/// ```swift
/// let clock = ManualClock()
/// let client = APIClient(configuration: configuration, transport: stub,
///                        middleware: [RetryMiddleware(policy: RetryPolicy(jitter: .none), clock: clock)])
/// _ = try await client.send(GetUser(id: "42"))     // the stub fails once with a 503
/// #expect(clock.sleeps == [.seconds(1)])
///
/// clock.advance(by: .seconds(3_600))                // an hour later: the token has expired
/// ```
///
/// A wait does not move the time (a retry's delay does not age a cached response): call
/// `advance(by:)` with a `Duration` for that.
public final class ManualClock: TimeSource {
    private struct State {
        var time: Date
        var sleeps: [Duration] = []
    }

    private let state: Locked<State>

    /// A clock reading `now` (default: 14 November 2023, 22:13:20 UTC — a fixed time, so that
    /// dates in a test's expectations are the same at every run).
    public init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Locked(State(time: now))
    }

    /// The time the clock reads.
    public func now() -> Date { state.withLock { $0.time } }

    /// Every wait asked of the clock, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// Records the wait and returns at once; throws `CancellationError` when the task is
    /// cancelled, as a real wait would.
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { $0.sleeps.append(duration) }
    }

    /// Moves the time forward by `duration` (backward when it is negative).
    public func advance(by duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        advance(by: seconds)
    }

    /// Moves the time forward by `seconds` (backward when negative).
    public func advance(by seconds: TimeInterval) {
        state.withLock { $0.time = $0.time.addingTimeInterval(seconds) }
    }

    /// Sets the time.
    public func set(to date: Date) {
        state.withLock { $0.time = date }
    }
}
