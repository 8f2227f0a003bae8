import Foundation

/// Where a transport may write a download's body itself, as the bytes arrive, instead of
/// handing them to the client through the body stream.
///
/// ``APIClient/download(_:to:progress:)`` offers one in ``RequestContext/responseBodySink``. A
/// transport that cannot slow the server down (URLSession on Linux: FoundationNetworking cannot
/// pause a transfer) uses it for a response whose status the client accepts: each chunk is then
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
        /// The transport's file, moved beside where it was, waiting to be copied into the
        /// sink's file by ``completeAdoption()`` (it was on another volume).
        var movedAside: URL?
    }

    private let state: Locked<State>
    private let limit: Int64?
    private let progress: TransferProgressHandler?
    /// The file `handle` writes to, which ``adoptFile(at:)`` replaces.
    private let file: URL?

    /// A sink writing to `handle` (open on `file`), refusing more than `limit` bytes.
    package init(handle: FileHandle, file: URL? = nil, limit: Int64?, progress: TransferProgressHandler?) {
        self.state = Locked(State(handle: handle))
        self.file = file
        self.limit = limit
        self.progress = progress
    }

    /// Whether a transport may hand over a whole file (``adoptFile(at:)``) instead of chunks.
    package var adoptsFiles: Bool { file != nil }

    /// A transport that writes the body to a file of its own (a URLSession download task)
    /// reports how far it is: `total` bytes so far. Throws ``LimitExceeded`` past the limit.
    ///
    /// Returns the progress to pass to ``report(_:)`` (`nil`: nothing to report). The transport
    /// reports it where the caller's handler may run — not on a queue the handler could block.
    package func written(total: Int64) throws -> TransferProgress? {
        try state.withLock { state -> TransferProgress? in
            guard state.handle != nil else { return nil }
            if let limit, total > limit { throw LimitExceeded(limit: limit) }
            state.written = total
            return progress == nil ? nil : TransferProgress(completedBytes: total, totalBytes: state.total)
        }
    }

    /// Whether the caller gave a progress handler.
    package var reportsProgress: Bool { progress != nil }

    /// Tells the caller's progress handler `progress` (one that ``write(_:)``, ``written(total:)``
    /// or ``adoptFile(at:)`` returned).
    package func report(_ progress: TransferProgress) {
        self.progress?(progress)
    }

    /// The transport's file, `location`, holds the whole body: it replaces the sink's file.
    /// Throws ``LimitExceeded`` past the limit, or the file system's error. Returns the progress
    /// to pass to ``report(_:)``.
    ///
    /// Never copies bytes: the transport calls this where it is told its file is complete (for
    /// URLSession on Linux, FoundationNetworking's work queue, which every URLSession request
    /// in the process shares) and removes `location` once it returns. On the same volume the
    /// file is renamed over the sink's, at once. On another volume (`EXDEV`) it is renamed
    /// beside `location` instead, also at once, and ``completeAdoption()`` copies it — the
    /// transport calls that elsewhere, before it ends the body.
    package func adoptFile(at location: URL) throws -> TransferProgress? {
        guard let file else { throw CocoaError(.fileWriteUnknown) }
        try state.withLock { state in
            guard state.handle != nil else { return }
            let size = (try FileManager.default.attributesOfItem(atPath: location.path)[.size] as? NSNumber)?.int64Value ?? 0
            if let limit, size > limit { throw LimitExceeded(limit: limit) }
            // rename(2) replaces the file in one step; the client's handle stays open on the
            // replaced one until it closes it, which is harmless.
            if rename(location.path, file.path) != 0 {
                let aside = location.deletingLastPathComponent().appendingPathComponent(".courier-download-\(UUID().uuidString)")
                guard rename(location.path, aside.path) == 0 else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: location.path,
                                                                   NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
                }
                state.movedAside = aside
            }
            state.written = size
        }
        guard progress != nil else { return nil }
        return state.withLock { TransferProgress(completedBytes: $0.written, totalBytes: $0.total) }
    }

    /// Copies into the sink's file the transport's file that ``adoptFile(at:)`` moved aside (it
    /// was on another volume), a MiB at a time, and removes it; does nothing otherwise, or once
    /// the sink is closed. Throws the file system's error.
    ///
    /// The copy takes as long as the disk does: call it where nothing else waits (not on a
    /// session's shared queue, and not on Swift's cooperative pool).
    package func completeAdoption() throws {
        let taken = state.withLock { state -> (aside: URL, open: Bool)? in
            guard let aside = state.movedAside else { return nil }
            state.movedAside = nil
            return (aside, state.handle != nil)
        }
        guard let (aside, open) = taken else { return }
        defer { try? FileManager.default.removeItem(at: aside) }
        guard open, let file else { return }
        // Through a handle of its own, outside the lock: a client that gives up meanwhile
        // closes its handle and removes the file without waiting for the copy (which then
        // fails or writes to a removed file), and the copy never writes through a descriptor
        // the client has closed — and the process may have reused.
        let source = try FileHandle(forReadingFrom: aside)
        defer { try? source.close() }
        let destination = try FileHandle(forWritingTo: file)
        defer { try? destination.close() }
        while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
            try destination.write(contentsOf: chunk)
        }
    }

    /// Whether ``adoptFile(at:)`` left a copy for ``completeAdoption()``.
    package var hasAdoptionToComplete: Bool { state.withLock { $0.movedAside != nil } }

    /// The most bytes the body may have (`nil`: no limit).
    package var maxBytes: Int64? { limit }

    /// Called by the transport once, when it starts writing the body here.
    package func begin() { state.withLock { $0.used = true } }

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

    /// Stops writing (the client closes the file), and removes a file ``adoptFile(at:)`` moved
    /// aside that was not copied.
    package func close() {
        let aside = state.withLock { state -> URL? in
            state.handle = nil
            defer { state.movedAside = nil }
            return state.movedAside
        }
        if let aside { try? FileManager.default.removeItem(at: aside) }
    }
}
