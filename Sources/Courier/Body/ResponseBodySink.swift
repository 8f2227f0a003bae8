import Foundation

/// Where a transport may write a download's body itself, as the bytes arrive, instead of
/// handing them to the client through the body stream.
///
/// ``APIClient/download(_:to:progress:)`` offers one in ``RequestContext/responseBodySink``.
/// `URLSessionTransport` uses it (on Linux FoundationNetworking cannot pause a transfer; on Apple
/// platforms it saves a hop per chunk) for a response whose status the client accepts: each chunk is then
/// written to the file on the transport's own queue the moment it arrives, so a download never
/// piles up in memory while the client's task waits for a thread. The body the transport
/// returns then carries no bytes, only the end of the transfer (or its error). A transport that
/// has back-pressure (AsyncHTTPClient) ignores the sink.
package final class ResponseBodySink: Sendable {
    /// Why a write was refused.
    package struct LimitExceeded: Error, Sendable {
        package let limit: Int64
    }

    private struct State {
        var handle: FileHandle?
        var written: Int64 = 0
        var used = false
        var total: Int64?
    }

    private let state: Locked<State>
    private let limit: Int64?
    private let progress: TransferProgressHandler?
    /// The last count handed to ``progress`` (-1: none since the body began): the transport's
    /// queue and the client's task both report, and a report below the last one (the client's
    /// "nothing yet" arriving after the first bytes) is dropped. Held only to read and set it.
    private let reported = Locked<Int64>(-1)
    /// Held while the caller's handler runs, so that reports reach it one at a time and in
    /// order. Nothing else waits on it: ``begin()``, on the session's queue, never waits for a
    /// handler (one that used URLSession would otherwise deadlock with it).
    private let delivering = Locked(())

    /// A sink writing to `handle`, refusing more than `limit` bytes.
    package init(handle: FileHandle, limit: Int64?, progress: TransferProgressHandler?) {
        self.state = Locked(State(handle: handle))
        self.limit = limit
        self.progress = progress
    }

    /// Whether the caller gave a progress handler.
    package var reportsProgress: Bool { progress != nil }

    /// Tells the caller's progress handler `progress` (one that ``write(_:)`` returned, or the
    /// client's report of the start), unless it is below one already told.
    package func report(_ progress: TransferProgress) {
        guard let handler = self.progress else { return }
        delivering.withLock { _ in
            let isNew = reported.withLock { last -> Bool in
                guard progress.completedBytes >= last else { return false }
                last = progress.completedBytes
                return true
            }
            if isNew { handler(progress) }
        }
    }

    /// Called by the transport for each response whose body belongs here, when its head
    /// arrives — also a bodiless one (`204`, `304`, `HEAD`). A second response — the exchange
    /// was retried, or redirected, after bytes of a first one were written — starts the file
    /// again: it never follows, nor keeps, the first one's bytes. Throws the file's error.
    package func begin() throws {
        try state.withLock { state in
            state.used = true
            guard state.written > 0, let handle = state.handle else { return }
            try handle.truncate(atOffset: 0)   // and moves the file pointer there
            state.written = 0
            reported.withLock { $0 = -1 }   // the new response's progress starts again
        }
    }

    /// Whether the transport wrote the body here.
    package var wasUsed: Bool { state.withLock { $0.used } }
    /// The bytes written so far.
    package var bytesWritten: Int64 { state.withLock { $0.written } }
    /// The body's length when known (for progress).
    package func setTotal(_ total: Int64?) { state.withLock { $0.total = total } }

    /// Writes one chunk; throws ``LimitExceeded`` past the limit, or the file's error. Returns
    /// the progress to pass to ``report(_:)``.
    package func write(_ data: Data) throws -> TransferProgress? {
        try state.withLock { state -> TransferProgress? in
            guard let handle = state.handle else { return nil }
            let written = state.written + Int64(data.count)
            if let limit, written > limit { throw LimitExceeded(limit: limit) }
            try handle.write(contentsOf: data)
            state.written = written
            return progress == nil ? nil : TransferProgress(completedBytes: written, totalBytes: state.total)
        }
    }

    /// Stops writing (the client closes the file).
    package func close() { state.withLock { $0.handle = nil } }
}
