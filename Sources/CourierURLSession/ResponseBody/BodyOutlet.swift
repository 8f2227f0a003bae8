import Courier
import Foundation

/// Where a streamed body's chunks go: a stream its reader takes them from (paused while the
/// reader lags, on Apple platforms), or a buffer that spills to disk where the transfer cannot
/// be paused (Linux).
enum BodyOutlet: Sendable {
    case stream(AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation)
    case spill(SpillingChunkBuffer)

    /// Passes on `data` (an empty chunk says "the transfer is moving"). Returns `false` when the
    /// body has ended with an error of its own (a spill file that cannot be written): the
    /// transfer should stop.
    @discardableResult
    func yield(_ data: Data) -> Bool {
        switch self {
        case .stream(let continuation):
            continuation.yield(ArraySlice(data))
            return true
        case .spill(let buffer):
            return buffer.append(data)
        }
    }

    /// Ends the body, normally or with `error`.
    func finish(throwing error: (any Error)?) {
        switch self {
        case .stream(let continuation):
            if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        case .spill(let buffer):
            buffer.finish(throwing: error)
        }
    }
}
