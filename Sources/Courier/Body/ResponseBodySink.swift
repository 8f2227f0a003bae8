import Foundation

/// Where a transport may write a download's body itself, as the bytes arrive, instead of
/// handing them to the client through the body stream.
///
/// ``APIClient/download(_:to:progress:)`` offers one in ``BodyChannels/responseSink``.
/// `URLSessionTransport` uses it (on Linux FoundationNetworking cannot pause a transfer; on Apple
/// platforms it saves a hop per chunk) for a response whose status the client accepts: each chunk is then
/// written to the file on the transport's own queue the moment it arrives, so a download never
/// piles up in memory while the client's task waits for a thread. The body the transport
/// returns then carries no bytes, only the end of the transfer (or its error). A transport that
/// has back-pressure (AsyncHTTPClient) ignores the sink.
package final class ResponseBodySink: Sendable {
    /// A count ``write(_:)`` returned, with the response it belongs to: reported later (on
    /// Linux through the task's progress queue), it may arrive after a retry's response began.
    package struct Written: Sendable {
        /// What to tell the caller's handler.
        package let progress: TransferProgress
        /// How many responses had begun when it was written.
        let response: Int
    }

    private struct State {
        var handle: FileHandle?
        /// How many responses have begun (``begin()``).
        var responses = 0
        var written: Int64 = 0
        var used = false
        var total: Int64?
    }

    private let state: Locked<State>
    private let limit: Int64?
    private let progress: TransferProgressHandler?
    /// The response being reported, and the last count handed to ``progress`` for it (-1: none
    /// since it began). The transport's queue and the client's task both report: a report below
    /// the last one (the client's "nothing yet" arriving after the first bytes) is dropped, and
    /// so is one of an earlier response (it would raise the floor above the new response's
    /// counts and hide them). Held only to read and set them.
    private let reported = Locked<(response: Int, last: Int64)>((0, -1))
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
        deliver(progress, of: nil)
    }

    /// Tells the caller's progress handler what ``write(_:)`` returned, unless it is below one
    /// already told or belongs to a response before the current one.
    package func report(_ written: Written) {
        deliver(written.progress, of: written.response)
    }

    private func deliver(_ progress: TransferProgress, of response: Int?) {
        guard let handler = self.progress else { return }
        delivering.withLock { _ in
            let isNew = reported.withLock { reported -> Bool in
                if let response, response != reported.response { return false }
                guard progress.completedBytes >= reported.last else { return false }
                reported.last = progress.completedBytes
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
            state.responses += 1
            // The new response's progress starts again; the earlier one's reports still on
            // their way are dropped.
            reported.withLock { [responses = state.responses] in $0 = (responses, -1) }
            guard state.written > 0, let handle = state.handle else { return }
            try handle.truncate(atOffset: 0)   // and moves the file pointer there
            state.written = 0
        }
    }

    /// Whether the transport wrote the body here.
    package var wasUsed: Bool { state.withLock { $0.used } }
    /// The bytes written so far.
    package var bytesWritten: Int64 { state.withLock { $0.written } }
    /// The body's length when known (for progress).
    package func setTotal(_ total: Int64?) { state.withLock { $0.total = total } }

    /// Writes one chunk; throws ``BodyLimitExceeded`` past the limit, or the file's error. Returns
    /// the progress to pass to ``report(_:)`` (nil without a progress handler).
    package func write(_ data: Data) throws -> Written? {
        try state.withLock { state -> Written? in
            guard let handle = state.handle else { return nil }
            let written = state.written + Int64(data.count)
            if let limit, written > limit { throw BodyLimitExceeded(limit: Int(clamping: limit)) }
            try handle.write(contentsOf: data)
            state.written = written
            return progress == nil ? nil : Written(progress: TransferProgress(completedBytes: written, totalBytes: state.total),
                                                   response: state.responses)
        }
    }

    /// Stops writing (the client closes the file).
    package func close() { state.withLock { $0.handle = nil } }
}
