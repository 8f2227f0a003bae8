import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The response side of ``RequestOptions/idleTimeout``: the wait for the response head (of a
/// request without a body) and each wait for the next bytes of the body fail with a timeout when
/// nothing arrives for `limit`.
///
/// Each wait races the transport against a timer in a task group; the loser is cancelled (both
/// transports end a body read when the reading task is cancelled). It costs two child tasks per
/// chunk, which is why it is off unless a request or the configuration asks for it.
enum IdleTimeout {
    /// Why an idle timeout fired (the `underlying` error of the ``TransportError``).
    struct Expired: Error, Sendable {
        let limit: Duration
    }

    static func error(_ limit: Duration, waitingFor what: String) -> TransportError {
        TransportError(.timeout, "nothing received for \(limit) while waiting for \(what) (idle timeout)",
                       underlying: Expired(limit: limit))
    }

    /// Runs `operation`, failing with a timeout if it has not finished after `limit`.
    static func race<T: Sendable>(_ limit: Duration, waitingFor what: String,
                                  _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                // Clamped: `.seconds(Int64.max)` ("no idle timeout") would trap in the conversion.
                try await SystemTimeSource().sleep(for: limit.clampedToLongestWait)
                throw error(limit, waitingFor: what)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// `body`, failing with a timeout when its next bytes take longer than `limit`.
    static func wrap(_ body: HTTPBody, limit: Duration) -> HTTPBody {
        HTTPBody(Sequence(base: body, limit: limit), length: body.length, iterationBehavior: body.iterationBehavior)
    }

    struct Sequence: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let base: HTTPBody
        let limit: Duration

        func makeAsyncIterator() -> Iterator {
            Iterator(box: IteratorBox(base.makeAsyncIterator()), limit: limit)
        }

        struct Iterator: AsyncIteratorProtocol {
            let box: IteratorBox
            let limit: Duration

            mutating func next() async throws -> ArraySlice<UInt8>? {
                let box = box
                return try await IdleTimeout.race(limit, waitingFor: "the next bytes of the response body") { try await box.next() }
            }
        }
    }

    /// The base iterator, moved into the child task that reads it.
    ///
    /// `@unchecked Sendable` is safe because the iterator is used by one task at a time: each
    /// `next()` of ``Sequence/Iterator`` starts one child task that calls it and returns only
    /// after the task group has awaited that child (a group waits for all its children), and an
    /// async iterator is never asked for its next element before the previous call returned.
    final class IteratorBox: @unchecked Sendable {  // safe: one reader at a time, see above
        private var iterator: HTTPBody.AsyncIterator

        init(_ iterator: HTTPBody.AsyncIterator) { self.iterator = iterator }

        func next() async throws -> ArraySlice<UInt8>? {
            try await iterator.next()
        }
    }
}
