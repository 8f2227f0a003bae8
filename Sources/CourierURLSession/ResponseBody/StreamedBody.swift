import Courier
import Foundation

/// The response body: chunks from the task, and an error — never a silent end — when the task
/// did not complete normally (cancellation of the reader, a lost connection).
struct StreamedBody: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let stream: AsyncThrowingStream<ArraySlice<UInt8>, any Error>
    let handler: TaskHandler

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.AsyncIterator
        let handler: TaskHandler
        /// Ends the transfer when this iterator is let go of before the end, even while the
        /// body (and so the stream) is still referenced.
        let lifetime: IteratorLifetime
        mutating func next() async throws -> ArraySlice<UInt8>? {
            if let chunk = try await base.next() {
                handler.consumed(chunk.count)
                return chunk
            }
            lifetime.reachedEnd()
            if handler.completedNormally { return nil }
            try Task.checkCancellation()
            throw TransportError(.connectionLost, "the body ended before the transfer completed")
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), handler: handler, lifetime: IteratorLifetime(handler: handler))
    }
}
