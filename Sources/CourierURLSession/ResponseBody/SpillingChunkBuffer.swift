import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of a streamed response whose transfer cannot be paused (URLSession on Linux, see
/// ``ReceiveFlow``): up to ``memoryLimit`` unread bytes wait in memory; past that, arriving
/// bytes go to a temporary file and are read back in order, so a reader that stops reading
/// costs disk, not memory.
///
/// The file is created owner-only (`0600`) in the transport's temporary directory and unlinked
/// at once: it has no name while it is used, and nothing is left behind if the process dies.
/// Once the reader has caught up with it, the file is emptied and memory is used again.
///
/// Hand-written: an `AsyncThrowingStream` buffers without bound, and no listed library spills
/// an async byte stream to disk.
final class SpillingChunkBuffer: Sendable {
    /// Unread bytes kept in memory before arriving bytes go to the file (1 MiB).
    static let defaultMemoryLimit = 1 << 20
    /// The most bytes read back from the file at once.
    static let readSize = 256 << 10
    /// Chunks that arrive smaller than this are added to the unread chunk before them, up to
    /// this size: a body sent in 1-byte chunks (one delegate call each) would otherwise cost an
    /// allocation and an array slot per byte, 80 times its size, uncounted.
    static let coalescedChunkSize = 16 << 10

    private struct State {
        /// Chunks in memory, oldest first (all older than anything in the file).
        var memory: [ArraySlice<UInt8>] = []
        var memoryStart = 0
        var memoryBytes = 0
        /// The spill file's descriptor (`-1`: none yet) and how far it is written and read.
        var fd: Int32 = -1
        var written: Int64 = 0
        var read: Int64 = 0
        /// A reader waiting for the next chunk.
        var waiter: CheckedContinuation<ArraySlice<UInt8>?, any Error>?
        /// How the body ended: `nil` while it goes on.
        var end: Result<Void, any Error>?
        /// The reader is gone; everything arriving is dropped.
        var closed = false
        /// Bytes that went through the file, for tests and figures.
        var spilled: Int64 = 0
        /// Bytes taken so far, for ``maxBytes``.
        var received: Int64 = 0
    }

    private let state = Locked(State())
    private let memoryLimit: Int
    private let maxBytes: Int?
    private let directory: URL

    /// A buffer keeping `memoryLimit` bytes in memory, spilling to a file in `directory`.
    /// With `maxBytes` (the body's size limit), a body longer than that ends with
    /// `BodyLimitExceeded` once the bytes within it are read, and ``append(_:)`` says
    /// to stop the transfer: the reader would fail there anyway, and the rest is never written
    /// to the disk.
    init(memoryLimit: Int = SpillingChunkBuffer.defaultMemoryLimit, maxBytes: Int? = nil, directory: URL) {
        self.memoryLimit = memoryLimit
        self.maxBytes = maxBytes
        self.directory = directory
    }

    deinit {
        state.withLock { state in
            if state.fd >= 0 { closeDescriptor(state.fd) }
            state.fd = -1
        }
    }

    /// The bytes that have gone through the spill file so far.
    var spilledBytes: Int64 { state.withLock { $0.spilled } }

    /// The unread chunks held in memory (for tests).
    var memoryChunkCount: Int { state.withLock { $0.memory.count - $0.memoryStart } }

    /// Adds the next chunk (the session's delegate queue). A chunk that cannot be written to the
    /// file ends the body with that error (a ``TransportError`` naming the directory and the
    /// file system's reason), after what is in memory; so does a chunk past ``maxBytes``, with
    /// `BodyLimitExceeded`.
    /// An empty chunk reaches a waiting reader only (it says "the transfer is moving", for the
    /// client's idle timeout) and is never buffered.
    ///
    /// - Returns: `false` when the body has ended with such an error: the transfer should stop.
    @discardableResult
    func append(_ data: Data) -> Bool {
        var data = data
        var limitError: BodyLimitExceeded?
        let (waiter, failed) = state.withLock { state -> (CheckedContinuation<ArraySlice<UInt8>?, any Error>?, Bool) in
            if case .failure? = state.end { return (nil, true) }
            guard !state.closed, state.end == nil else { return (nil, false) }
            if data.isEmpty {
                defer { state.waiter = nil }
                return (state.waiter, false)
            }
            if let maxBytes, state.received + Int64(data.count) > Int64(maxBytes) {
                // The bytes within the limit are kept (an error response's readable prefix);
                // the body ends with the error after them.
                data = data.prefix(max(0, maxBytes - Int(state.received)))
                limitError = BodyLimitExceeded(limit: maxBytes)
            }
            state.received += Int64(data.count)
            if let limitError, data.isEmpty {
                state.end = .failure(limitError)
                defer { state.waiter = nil }
                return (state.waiter, true)     // a waiting reader has read everything before
            }
            if let waiter = state.waiter {
                state.waiter = nil
                if let limitError { state.end = .failure(limitError) }
                return (waiter, limitError != nil)   // nothing is buffered: straight to the reader
            }
            if state.written == state.read, state.memoryBytes + data.count <= memoryLimit {
                let last = state.memory.count - 1
                if last >= state.memoryStart, data.count < Self.coalescedChunkSize,
                   state.memory[last].count + data.count <= Self.coalescedChunkSize {
                    state.memory[last].append(contentsOf: data)
                } else {
                    state.memory.append(ArraySlice(data))
                }
                state.memoryBytes += data.count
            } else {
                do {
                    try Self.writeToFile(data, state: &state, directory: directory)
                } catch {
                    state.end = .failure(TransportError(.localFile, "the response body could not be kept in a temporary file in \(directory.path) while its reader lagged: \(Self.reason(error))", underlying: error))
                    return (nil, true)
                }
            }
            if let limitError { state.end = .failure(limitError) }
            return (nil, limitError != nil)
        }
        if let waiter {
            if data.isEmpty, let limitError {
                waiter.resume(throwing: limitError)
            } else {
                waiter.resume(returning: ArraySlice(data))
            }
        }
        return !failed
    }

    /// Ends the body: normally (`nil`) or with `error`, after what is buffered has been read.
    func finish(throwing error: (any Error)?) {
        let waiter = state.withLock { state -> CheckedContinuation<ArraySlice<UInt8>?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// The reader is gone: drops what is buffered and closes the file.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<ArraySlice<UInt8>?, any Error>? in
            state.closed = true
            state.memory = []
            state.memoryStart = 0
            state.memoryBytes = 0
            if state.fd >= 0 { closeDescriptor(state.fd) }
            state.fd = -1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next chunk in arrival order, `nil` at the end, or the error the body ended with.
    ///
    /// A wait ends with `CancellationError` when the reading task is cancelled (the client's
    /// idle timeout cancels a wait that lasts too long); nothing buffered is lost.
    func next() async throws -> ArraySlice<UInt8>? {
        if let ready = state.withLock({ Self.take(&$0) }) { return try ready.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Something may have arrived between the two locks.
                let ready = state.withLock { state -> Result<ArraySlice<UInt8>?, any Error>? in
                    if let ready = Self.take(&state) { return ready }
                    // Cancelled before the waiter was registered: the handler found none.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<ArraySlice<UInt8>?, any Error>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// What the reader gets now, or `nil` when it must wait.
    private static func take(_ state: inout State) -> Result<ArraySlice<UInt8>?, any Error>? {
        if state.memoryStart < state.memory.count {
            let chunk = state.memory[state.memoryStart]
            state.memory[state.memoryStart] = []
            state.memoryStart += 1
            state.memoryBytes -= chunk.count
            if state.memoryStart == state.memory.count {
                state.memory.removeAll(keepingCapacity: true)
                state.memoryStart = 0
            }
            return .success(chunk)
        }
        if state.read < state.written {
            do {
                return .success(try readFromFile(state: &state))
            } catch {
                let failure = TransportError(.localFile, "the response body could not be read back from its temporary file: \(reason(error))", underlying: error)
                state.read = state.written   // what is left in the file is lost
                state.end = .failure(failure)
                return .failure(failure)
            }
        }
        switch state.end {
        case .success?: return .success(nil)
        case .failure(let error)?: return .failure(error)
        case nil: return state.closed ? .success(nil) : nil
        }
    }

    // MARK: The file

    /// The file system's words for `error` ("No space left on device").
    private static func reason(_ error: any Error) -> String {
        guard let posix = error as? POSIXError else { return "\(error)" }
        return String(cString: strerror(posix.code.rawValue))
    }

    private static func writeToFile(_ data: Data, state: inout State, directory: URL) throws {
        if state.fd < 0 { state.fd = try openUnlinkedFile(in: directory) }
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let count = pwrite(state.fd, bytes.baseAddress! + offset, bytes.count - offset, off_t(state.written) + off_t(offset))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                offset += count
            }
        }
        state.written += Int64(data.count)
        state.spilled += Int64(data.count)
    }

    private static func readFromFile(state: inout State) throws -> ArraySlice<UInt8> {
        let count = Int(min(Int64(readSize), state.written - state.read))
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(state.fd, buffer.baseAddress! + filled, count - filled, off_t(state.read) + off_t(filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if got == 0 { throw POSIXError(.EIO) }
            filled += got
        }
        state.read += Int64(count)
        if state.read == state.written {
            // The reader has caught up: empty the file and use memory again.
            _ = ftruncate(state.fd, 0)
            state.read = 0
            state.written = 0
        }
        return bytes[...]
    }

    /// A new file in `directory`, owner-only, already unlinked.
    private static func openUnlinkedFile(in directory: URL) throws -> Int32 {
        let path = directory.appendingPathComponent(".courier-response-\(UUID().uuidString)").path
        let fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        unlink(path)
        return fd
    }
}

/// `close(2)`, which ``SpillingChunkBuffer/close()`` shadows inside the class.
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
