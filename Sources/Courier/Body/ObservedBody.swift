import Foundation
import OpenAPIRuntime

/// Watches a response body stream by without buffering it: counts bytes, keeps a short prefix,
/// and reports once when the body ends, fails, or is dropped unread. Used by logging, metrics
/// and tracing so that their "exchange finished" line includes the real size and duration.
package enum ObservedBody {
    /// What was seen of a body.
    package struct Outcome: Sendable {
        /// Bytes that went through.
        package var bytes: Int
        /// The first bytes, up to the requested prefix length.
        package var prefix: Data
        /// The error that ended the stream, if any.
        package var error: (any Error)?
        /// Whether the body was released before it was read to the end.
        package var abandoned: Bool
    }

    /// A body that yields `body`'s bytes and calls `onFinish` exactly once. A `nil` body reports
    /// at once.
    ///
    /// So does a body already whole in memory when no prefix is wanted: one that can be read
    /// again and whose length is known (`HTTPBody(data)`, a transport's collected answer, a
    /// cache hit — the rule ``BodyReading/isWhole(_:afterFirstChunkOf:)`` relies on too). Its
    /// exchange is over, its size is its length, and it is handed on unwrapped: the client then
    /// collects it without iterating it (``WholeResponseBody`` recognises only the body the
    /// transport returned), and no observer is allocated.
    package static func wrap(_ body: HTTPBody?, prefixLength: Int = 0, onFinish: @escaping @Sendable (Outcome) -> Void) -> HTTPBody? {
        guard let body else {
            onFinish(Outcome(bytes: 0, prefix: Data(), error: nil, abandoned: false))
            return nil
        }
        if prefixLength == 0, body.iterationBehavior == .multiple, case .known(let length) = body.length {
            onFinish(Outcome(bytes: Int(clamping: length), prefix: Data(), error: nil, abandoned: false))
            return body
        }
        let observer = Observer(prefixLength: prefixLength, onFinish: onFinish)
        return HTTPBody(Sequence(base: body, observer: observer), length: body.length, iterationBehavior: body.iterationBehavior)
    }

    /// The shared state of one observed body.
    private final class Observer: Sendable {
        private struct State {
            var bytes = 0
            var prefix = Data()
            var finished = false
        }
        private let state = Locked(State())
        private let prefixLength: Int
        private let onFinish: @Sendable (Outcome) -> Void

        init(prefixLength: Int, onFinish: @escaping @Sendable (Outcome) -> Void) {
            self.prefixLength = prefixLength
            self.onFinish = onFinish
        }

        func record(_ chunk: ArraySlice<UInt8>) {
            state.withLock { state in
                guard !state.finished else { return }
                state.bytes += chunk.count
                if state.prefix.count < prefixLength { state.prefix.append(contentsOf: chunk.prefix(prefixLength - state.prefix.count)) }
            }
        }

        func finish(error: (any Error)?, abandoned: Bool) {
            let outcome = state.withLock { state -> Outcome? in
                guard !state.finished else { return nil }
                state.finished = true
                return Outcome(bytes: state.bytes, prefix: state.prefix, error: error, abandoned: abandoned)
            }
            if let outcome { onFinish(outcome) }
        }

        deinit { finish(error: nil, abandoned: true) }
    }

    private struct Sequence: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let base: HTTPBody
        let observer: Observer

        func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), observer: observer) }

        struct Iterator: AsyncIteratorProtocol {
            var base: HTTPBody.Iterator
            let observer: Observer

            mutating func next() async throws -> ArraySlice<UInt8>? {
                do {
                    guard let chunk = try await base.next() else {
                        observer.finish(error: nil, abandoned: false)
                        return nil
                    }
                    observer.record(chunk)
                    return chunk
                } catch {
                    observer.finish(error: error, abandoned: false)
                    throw error
                }
            }
        }
    }
}
