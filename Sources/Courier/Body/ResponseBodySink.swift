import Foundation
import HTTPTypes

/// Where a transport may write a download's body itself, as the bytes arrive, instead of
/// handing them to the client through the body stream.
///
/// ``APIClient/download(_:to:progress:)`` offers one in ``BodyChannels/responseSink``.
/// `URLSessionTransport` uses it (on Linux FoundationNetworking cannot pause a transfer; on Apple
/// platforms it saves a hop per chunk) for a response whose status the client accepts: each chunk is then
/// written to the file on the transport's own queue the moment it arrives, so a download never
/// piles up in memory while the client's task waits for a thread. The body the transport
/// returns then carries no bytes, only the end of the transfer (or its error). A transport that
/// has back-pressure (AsyncHTTPClient) ignores the sink, and the client writes each chunk here
/// itself.
///
/// A download that resumes gives the sink what it asked for (a ``RangeRequest``): the sink
/// then places each response's body by ``RangeRequest/answer(to:accepted:)`` — after the bytes
/// already on disk for a `206` that continues them, from zero for a complete answer — and
/// refuses the body of an answer it cannot place (a `206` that does not start where the file
/// ends, of another representation…), so such bytes never reach the file, whoever writes them.
package final class ResponseBodySink: Sendable {
    /// A count ``write(_:)`` returned, with the response it belongs to: reported later (on
    /// Linux through the task's progress queue), it may arrive after a retry's response began.
    package struct Written: Sendable {
        /// What to tell the caller's handler.
        package let progress: TransferProgress
        /// How many responses had begun when it was written.
        let response: Int
    }

    /// Where the current response's body goes (for a sink with a ``RangeRequest``).
    struct Placement: Sendable {
        /// The response whose body it is.
        var head: HTTPResponse
        /// Where its first byte went.
        var offset: Int64
        /// The answer it was placed by.
        var answer: RangeRequest.Answer
        /// Which response of the exchange it is (1 for the first; a retry's is the next).
        var response: Int
    }

    /// The error a write throws for a body the sink refused (see ``begin(response:)``): the
    /// transport stops the transfer, and the client, which judges the head the same way,
    /// reports why.
    struct Refused: Error, CustomStringConvertible {
        var description: String { "the response's body cannot continue the partial file" }
    }

    private struct State {
        var handle: FileHandle?
        /// How many responses have begun (``begin()``).
        var responses = 0
        /// The file's length: where the next byte goes.
        var written: Int64 = 0
        var used = false
        var total: Int64?
        /// The bytes handed to ``write(_:)`` and written, over every response.
        var received: Int64 = 0
        /// Where writes must stop (exclusive): the end of the range a `206` announced.
        var end: Int64?
        /// The current response's placement; `nil` when its body is refused or before the first.
        var placement: Placement?
        /// Whether the current response's body is refused.
        var refusing = false
    }

    private let state: Locked<State>
    private let limit: Int64?
    private let progress: TransferProgressHandler?
    /// What the download asked for in this exchange; `nil`: every response starts the file again.
    private let range: RangeRequest?
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

    /// A sink writing to `handle`, refusing more than `limit` bytes in the file.
    package init(handle: FileHandle, limit: Int64?, progress: TransferProgressHandler?) {
        self.state = Locked(State(handle: handle))
        self.limit = limit
        self.progress = progress
        self.range = nil
    }

    /// A sink for one exchange of a resumable download: the file holds `range.offset` bytes,
    /// and each response is placed by `range` (see the type's description).
    init(handle: FileHandle, limit: Int64?, progress: TransferProgressHandler?, range: RangeRequest) {
        self.state = Locked(State(handle: handle, written: range.offset, total: range.completeLength))
        self.limit = limit
        self.progress = progress
        self.range = range
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
            // A report still on its way from a transport's queue after the client closed the
            // sink belongs to an exchange the download has left.
            guard state.withLock({ $0.handle != nil }) else { return }
            let isNew = reported.withLock { reported -> Bool in
                if let response, response != reported.response { return false }
                guard progress.completedBytes >= reported.last else { return false }
                reported.last = progress.completedBytes
                return true
            }
            if isNew { handler(progress) }
        }
    }

    /// ``begin(response:)`` without the head: the body starts the file again.
    package func begin() throws {
        try begin(response: nil)
    }

    /// Called by the transport for each response whose body belongs here, when its head
    /// arrives — also a bodiless one (`204`, `304`, `HEAD`); the client calls it for a response
    /// no transport began (``needsBegin(for:)``). A second response — the exchange was retried, or
    /// redirected, after bytes of a first one were written — starts again where the first one
    /// started: it never follows, nor keeps, the first one's bytes. With a ``RangeRequest``,
    /// `head` decides where the body goes, or that it is refused. Throws the file's error.
    package func begin(response head: HTTPResponse?) throws {
        try state.withLock { state in
            state.used = true
            state.responses += 1
            // The new response's progress starts again; the earlier one's reports still on
            // their way are dropped.
            reported.withLock { [responses = state.responses] in $0 = (responses, -1) }
            guard let range, let head else {
                guard state.written > 0, let handle = state.handle else { return }
                try handle.truncate(atOffset: 0)   // and moves the file pointer there
                state.written = 0
                return
            }
            let answer = range.answer(to: head, accepted: true)
            guard case .write(let offset, let end, let length, _) = answer else {
                state.refusing = true
                state.placement = nil
                state.end = nil
                return
            }
            state.refusing = false
            state.placement = Placement(head: head, offset: offset, answer: answer, response: state.responses)
            state.end = end
            if let length { state.total = length }
            guard let handle = state.handle else { return }
            try handle.truncate(atOffset: UInt64(offset))   // and moves the file pointer there
            state.written = offset
        }
    }

    /// Whether the client must begin the response `head` itself: no transport began one here
    /// (it reads bodies as streams), or the one it began is not this one (a middleware answered
    /// in its place — a stored `200` for a `304`). A response the transport began is never
    /// begun again: its bytes are already in the file, and more may be on their way.
    func needsBegin(for head: HTTPResponse) -> Bool {
        state.withLock { state in
            guard state.used else { return true }
            if let placement = state.placement { return placement.head.status.code != head.status.code }
            return !state.refusing
        }
    }

    /// Where the current response's body went; `nil` when refused or before a response began.
    var placement: Placement? { state.withLock { $0.placement } }

    /// Whether the transport wrote the body here.
    package var wasUsed: Bool { state.withLock { $0.used } }
    /// The file's length: with a ``RangeRequest``, the bytes on disk before this exchange and
    /// those it added; otherwise the bytes written so far.
    package var bytesWritten: Int64 { state.withLock { $0.written } }
    /// The bytes written over every response, for the download's count of bytes received.
    var bytesReceived: Int64 { state.withLock { $0.received } }
    /// The body's length when known (for progress).
    package func setTotal(_ total: Int64?) { state.withLock { $0.total = total } }

    /// Writes one chunk; throws ``BodyLimitExceeded`` past the limit, ``DownloadError`` past
    /// the end of the announced range (after writing what fits), ``Refused`` for a refused
    /// body, or the file's error. Returns the progress to pass to ``report(_:)`` (nil without a
    /// progress handler).
    package func write(_ data: Data) throws -> Written? {
        try state.withLock { state -> Written? in
            guard let handle = state.handle else { return nil }
            if state.refusing { throw Refused() }
            var chunk = data
            var overrun: DownloadError?
            if let end = state.end, state.written + Int64(chunk.count) > end {
                overrun = DownloadError(.rangeOverrun, detail: "the body goes on past byte \(end) (its end as announced)")
                chunk = chunk.prefix(Int(max(0, end - state.written)))
            }
            let written = state.written + Int64(chunk.count)
            if let limit, written > limit { throw BodyLimitExceeded(limit: Int(clamping: limit)) }
            if !chunk.isEmpty { try handle.write(contentsOf: chunk) }
            state.written = written
            state.received += Int64(chunk.count)
            if let overrun { throw overrun }
            return progress == nil ? nil : Written(progress: TransferProgress(completedBytes: written, totalBytes: state.total),
                                                   response: state.responses)
        }
    }

    /// Stops writing (the client closes the file): a transport's later writes are dropped.
    package func close() { state.withLock { $0.handle = nil } }
}
