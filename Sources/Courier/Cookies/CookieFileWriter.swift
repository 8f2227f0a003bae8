import Foundation
import Logging

/// Writes a persistent ``CookieJar``'s cookies to its ``CookieFile`` on a queue of its own, so
/// that a response that changes the cookies never waits for the disk (the file is flushed with
/// `fsync`, milliseconds on a busy disk, which on a task's thread held up every task behind it).
///
/// Changes that arrive while a write is under way are written together by the next one: a
/// burst of responses costs two writes, not one each. Each write takes the jar's cookies as
/// they are when it starts, so nothing is written out of order.
///
/// Hand-written: a serial `DispatchQueue` and a revision counter are all it takes, and the
/// blocking file calls must stay off Swift concurrency's few threads.
final class CookieFileWriter: Sendable {
    /// What the jar has asked for and what is on disk, as the store's revisions.
    private struct State {
        /// The newest revision a change asked to be written.
        var requested = Int.min
        /// The newest revision written (or whose write failed and was logged).
        var written = Int.min
        /// Whether a run of the queue is scheduled or under way.
        var scheduled = false
    }

    let file: CookieFile
    private let queue = DispatchQueue(label: "courier.cookie-file")
    private let state = Locked(State())

    init(file: CookieFile) {
        self.file = file
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
        if starts { queue.async { self.run(logger: logger, snapshot: snapshot) } }
    }

    /// Writes what is not on disk yet, and returns when it is (or when the write failed).
    func flush(logger: Logger, snapshot: @escaping @Sendable () -> (cookies: [Cookie], revision: Int)) {
        queue.sync { writePending(logger: logger, snapshot: snapshot) }
    }

    /// One scheduled run: writes until nothing is pending, then lets the next change schedule
    /// a run again.
    private func run(logger: Logger, snapshot: @escaping @Sendable () -> (cookies: [Cookie], revision: Int)) {
        while true {
            writePending(logger: logger, snapshot: snapshot)
            let done = state.withLock { state -> Bool in
                guard state.requested <= state.written else { return false }
                state.scheduled = false
                return true
            }
            if done { return }
        }
    }

    /// Writes the jar as it is now while a requested revision is not on disk (on the queue).
    private func writePending(logger: Logger, snapshot: () -> (cookies: [Cookie], revision: Int)) {
        while state.withLock({ $0.requested > $0.written }) {
            let (cookies, revision) = snapshot()
            file.save(cookies, revision: revision, logger: logger)
            state.withLock { $0.written = max($0.written, revision) }
        }
    }
}
