import Foundation
import Logging

/// Writes a persistent ``CookieJar``'s cookies to its ``CookieFile`` on a queue of its own, so
/// that a response that changes the cookies never waits for the disk (the file is flushed with
/// `fsync`, milliseconds on a busy disk, which on a task's thread held up every task behind it).
///
/// Changes that arrive while a write is under way are written together by the next one: a
/// burst of responses costs two writes, not one each. Each write takes the jar's cookies as
/// they are when it starts, so nothing is written out of order. One write runs per turn of the
/// queue, so a ``flush(logger:snapshot:)`` waits for the write under way and its own, never for
/// a stream of changes that keeps arriving.
///
/// Hand-written: a serial `DispatchQueue` and a revision counter are all it takes, and the
/// blocking file calls must stay off Swift concurrency's few threads.
final class CookieFileWriter: Sendable {
    /// What the jar has asked for and what is on disk, as the store's revisions.
    private struct State {
        /// The newest revision a change asked to be written.
        var requested = Int.min
        /// The newest revision written, or whose write failed and was logged.
        var written = Int.min
        /// Whether the last write failed (a `flush` tries once more).
        var lastWriteFailed = false
        /// Whether a turn of the queue is scheduled.
        var scheduled = false
    }

    let file: CookieFile
    private let queue = DispatchQueue(label: "courier.cookie-file")
    /// Set on `queue`, so a `flush` called from it (a log handler or a clock the write calls)
    /// returns at once instead of waiting for itself: the write under way is the flush's
    /// caller, and the queue's next turn writes whatever it does not cover.
    private let onQueue = DispatchSpecificKey<Bool>()
    private let state = Locked(State())

    init(file: CookieFile) {
        self.file = file
        queue.setSpecific(key: onQueue, value: true)
    }

    /// Asks for `revision` to reach the file; returns at once. `snapshot` gives the cookies to
    /// save and their revision, read when the write starts.
    func request(revision: Int, logger: Logger, snapshot: @escaping @Sendable () -> (cookies: [Cookie], revision: Int)) {
        let starts = state.withLock { state -> Bool in
            state.requested = max(state.requested, revision)
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        if starts { queue.async { self.turn(logger: logger, snapshot: snapshot) } }
    }

    /// Writes what was asked for before this call and is not on disk yet (or whose write
    /// failed: it is tried once more), and returns when that is done: after the write under
    /// way, if any, and one more. Called from within a write, it returns at once.
    func flush(logger: Logger, snapshot: @escaping @Sendable () -> (cookies: [Cookie], revision: Int)) {
        guard DispatchQueue.getSpecific(key: onQueue) != true else { return }
        let target = state.withLock { $0.requested }
        queue.sync {
            let needed = state.withLock { $0.written < target || $0.lastWriteFailed }
            if needed { write(logger: logger, snapshot: snapshot) }
        }
    }

    /// One turn of the queue: one write if one is pending, then either another turn (changes
    /// arrived meanwhile) or none until the next change.
    private func turn(logger: Logger, snapshot: @escaping @Sendable () -> (cookies: [Cookie], revision: Int)) {
        if state.withLock({ $0.requested > $0.written }) { write(logger: logger, snapshot: snapshot) }
        let again = state.withLock { state -> Bool in
            guard state.requested > state.written else {
                state.scheduled = false
                return false
            }
            return true
        }
        if again { queue.async { self.turn(logger: logger, snapshot: snapshot) } }
    }

    /// Writes the jar as it is now (on the queue). A failure is logged by the file and counts
    /// as written, so a lasting one does not loop; `flush` retries it once.
    private func write(logger: Logger, snapshot: () -> (cookies: [Cookie], revision: Int)) {
        let (cookies, revision) = snapshot()
        let saved = file.save(cookies, revision: revision, logger: logger)
        state.withLock {
            $0.written = max($0.written, revision)
            $0.lastWriteFailed = !saved
        }
    }
}
