import Courier
import Foundation
import OpenAPIRuntime

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

extension BodyOutlet {
    /// A new outlet for `handler`'s streamed body, already holding `buffered`, and the body the
    /// caller reads from it (`nil` for a `HEAD` request). With a `spillDirectory` (where the
    /// transfer cannot be paused) what the reader has not taken past 1 MiB spills to a file and
    /// the body ends past `maxBytes`; otherwise the chunks wait in a stream. Either body cancels
    /// the task when its reader lets go of it before the end.
    static func open(for handler: TaskHandler, buffered: Data?, spillDirectory: URL?, maxBytes: Int?,
                     isHead: Bool) -> (outlet: BodyOutlet, body: HTTPBody?) {
        if let spillDirectory, !isHead {
            let buffer = SpillingChunkBuffer(maxBytes: maxBytes, directory: spillDirectory)
            if let buffered { buffer.append(buffered) }
            return (.spill(buffer), HTTPBody(SpilledBody(buffer: buffer, handler: handler), length: .unknown, iterationBehavior: .single))
        }
        var streamContinuation: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation!
        let stream = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { streamContinuation = $0 }
        streamContinuation.onTermination = { [weak handler] termination in
            if case .cancelled = termination { handler?.cancel(reason: .cancelled) }
        }
        if let buffered { streamContinuation.yield(ArraySlice(buffered)) }
        let body = isHead ? nil : HTTPBody(StreamedBody(stream: stream, handler: handler), length: .unknown, iterationBehavior: .single)
        return (.stream(streamContinuation), body)
    }
}
