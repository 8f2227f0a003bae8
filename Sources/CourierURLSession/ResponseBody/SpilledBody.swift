import Courier
import Foundation

/// The response body read from a ``SpillingChunkBuffer``. A reader that stops before the end —
/// or a body dropped unread — cancels the task, as with ``StreamedBody``.
struct SpilledBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    /// Shared by the body and its iterator: when both are gone before the end (the body was
    /// dropped unread, or the reader stopped), the task is cancelled.
    let reader: Reader

    init(buffer: SpillingChunkBuffer, handler: TaskHandler) {
        reader = Reader(buffer: buffer, handler: handler)
    }

    /// Cancels the task and drops the buffer when the reader goes away before the end.
    final class Reader: Sendable {
        let buffer: SpillingChunkBuffer
        let handler: TaskHandler
        /// The reader got the body's end. Not set by an error: the reader's own cancellation (its
        /// task cancelled, or an idle timeout, while it waited for a chunk) and a failed spill
        /// file both throw with the transfer still running, and only `deinit`'s cancel ends it.
        /// (Cancelling a task that has completed does nothing.)
        let ended = Locked(false)
        init(buffer: SpillingChunkBuffer, handler: TaskHandler) {
            self.buffer = buffer
            self.handler = handler
        }
        deinit {
            guard !ended.current else { return }
            handler.cancel(reason: .cancelled)
            buffer.close()
        }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let reader: Reader
        /// Ends the transfer when this iterator is let go of before the end, even while the
        /// body is still referenced.
        let lifetime: IteratorLifetime
        mutating func next() async throws -> ArraySlice<UInt8>? {
            if let chunk = try await reader.buffer.next() { return chunk }
            reader.ended.withLock { $0 = true }
            lifetime.reachedEnd()
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let buffer = reader.buffer
        return AsyncIterator(reader: reader, lifetime: IteratorLifetime(handler: reader.handler) { buffer.close() })
    }
}
