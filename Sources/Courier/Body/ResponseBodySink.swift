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

    /// The transport's file, `location`, holds the whole body: it replaces the sink's file
    /// (renamed over it, or copied into it when it is on another volume). Throws
    /// ``LimitExceeded`` past the limit, or the file system's error. Returns the progress to
    /// pass to ``report(_:)``.
    package func adoptFile(at location: URL) throws -> TransferProgress? {
        guard let file else { throw CocoaError(.fileWriteUnknown) }
        try state.withLock { state in
            guard let handle = state.handle else { return }
            let size = (try FileManager.default.attributesOfItem(atPath: location.path)[.size] as? NSNumber)?.int64Value ?? 0
            if let limit, size > limit { throw LimitExceeded(limit: limit) }
            // rename(2) replaces the file in one step; the client's handle stays open on the
            // replaced one until it closes it, which is harmless. Across volumes (EXDEV) the
            // bytes are copied into the client's file instead, a MiB at a time.
            if rename(location.path, file.path) != 0 {
                let source = try FileHandle(forReadingFrom: location)
                defer { try? source.close() }
                while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try handle.write(contentsOf: chunk)
                }
            }
            state.written = size
        }
        guard progress != nil else { return nil }
        return state.withLock { TransferProgress(completedBytes: $0.written, totalBytes: $0.total) }
    }

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

    /// Stops writing (the client closes the file).
    package func close() { state.withLock { $0.handle = nil } }
}
