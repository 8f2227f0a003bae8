import Foundation

/// A per-client limit on retries, so a failing server is not hammered: retries may add at most
/// a fraction of the traffic on top of first attempts, plus a small reserve per second.
///
/// A token bucket as in gRPC and Finagle: every first attempt deposits `retryRatio` tokens (up
/// to `maxBalance`), every retry withdraws one; when there is no token, the retry is skipped and
/// the last response or error is returned. A reserve of `minRetriesPerSecond` tokens refills
/// with time, so a client with little traffic can still retry.
///
/// One budget is shared by every request that goes through the same ``RetryMiddleware`` (or
/// pass the same budget to several middleware to share it further).
///
/// ```swift
/// let budget = RetryBudget(retryRatio: 0.2, minRetriesPerSecond: 10)
/// let retry = RetryMiddleware(policy: .default, budget: budget)
/// ```
public final class RetryBudget: Sendable {
    private struct State {
        var deposits: Double
        var reserve: Double
        var lastRefill: Date
    }

    /// The fraction of first attempts that may be retried (0.2: at most 20% extra requests).
    public let retryRatio: Double
    /// Retries always allowed per second, whatever the ratio.
    public let minRetriesPerSecond: Double
    /// The most tokens deposits can accumulate.
    public let maxBalance: Double

    /// Tolerance for sums of fractional deposits (0.2 × 10 is 1.9999999999999998 in binary).
    private static let epsilon = 1e-9

    private let state: Locked<State>
    private let clock: any TimeSource

    /// Creates a budget.
    /// - Parameters:
    ///   - retryRatio: retries allowed per first attempt (default 0.2, i.e. +20%).
    ///   - minRetriesPerSecond: a reserve that refills with time (default 10 per second).
    ///   - maxBalance: the cap on accumulated deposits (default 100).
    ///   - clock: the time source for the reserve (tests pass one they move by hand).
    public init(
        retryRatio: Double = 0.2,
        minRetriesPerSecond: Double = 10,
        maxBalance: Double = 100,
        clock: any TimeSource = .system
    ) {
        self.retryRatio = max(0, retryRatio)
        self.minRetriesPerSecond = max(0, minRetriesPerSecond)
        self.maxBalance = max(1, maxBalance)
        self.clock = clock
        self.state = Locked(State(deposits: 0, reserve: max(0, minRetriesPerSecond), lastRefill: clock.now()))
    }

    /// A budget that never limits retries.
    public static var unlimited: RetryBudget {
        RetryBudget(retryRatio: 1, minRetriesPerSecond: .greatestFiniteMagnitude, maxBalance: .greatestFiniteMagnitude)
    }

    /// Records a first attempt (called once per request by ``RetryMiddleware``).
    public func recordRequest() {
        state.withLock { $0.deposits = min(maxBalance, $0.deposits + retryRatio) }
    }

    /// Takes a token for one retry; `false` when the budget is spent.
    public func tryWithdraw() -> Bool {
        let instant = clock.now()
        return state.withLock { state in
            if minRetriesPerSecond > 0 {
                // Wall-clock time: a clock set backwards refills nothing (and restarts from there).
                let seconds = instant.timeIntervalSince(state.lastRefill)
                if seconds < 0 { state.lastRefill = instant }
                if seconds > 0 {
                    state.reserve = min(minRetriesPerSecond, state.reserve + seconds * minRetriesPerSecond)
                    state.lastRefill = instant
                }
            }
            if state.reserve >= 1 - Self.epsilon {
                state.reserve -= 1
                return true
            }
            if state.deposits >= 1 - Self.epsilon {
                state.deposits -= 1
                return true
            }
            return false
        }
    }

    /// The retries available now (deposits plus reserve, rounded down; `Int.max` for a budget
    /// without limit), for tests and metrics.
    public var available: Int {
        state.withLock { state in
            let value = (state.deposits + state.reserve + Self.epsilon).rounded(.down)
            // `Int(_:)` traps past Int.max: `.unlimited`'s reserve is `.greatestFiniteMagnitude`.
            return value >= Double(Int.max) ? Int.max : Int(value)
        }
    }
}
