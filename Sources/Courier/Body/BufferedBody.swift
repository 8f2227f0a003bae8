import Foundation
import OpenAPIRuntime

/// Reads the start of a single-pass response body inside a middleware, and hands back a body
/// that yields the same bytes: in memory when the whole body fit, otherwise the bytes read so
/// far followed by the rest of the original stream (never buffered further).
package enum BufferedBody {
    /// Reads `body` up to `limit` bytes. Errors while reading are thrown (so a caller such as
    /// ``RetryMiddleware`` can retry a connection lost mid-body).
    package static func read(_ body: HTTPBody, limit: Int) async throws -> HTTPBody {
        var iterator = body.makeAsyncIterator()
        var data = Data()
        while let chunk = try await iterator.next() {
            data.append(contentsOf: chunk)
            if data.count > limit {
                let rest = Remainder(prefix: ArraySlice(data), iterator: iterator)
                return HTTPBody(RemainderSequence(remainder: rest), length: body.length, iterationBehavior: .single)
            }
        }
        return HTTPBody(data)
    }

    /// The bytes already read and the iterator of the rest.
    ///
    /// `@unchecked Sendable` is safe: the body built from it is `.single`, so `HTTPBody` creates
    /// at most one iterator over it, and an async iterator is advanced by one task at a time
    /// (`next()` calls never overlap), so `prefix` and `iterator` are never accessed concurrently.
    private final class Remainder: @unchecked Sendable {  // safe: single iterator, see above
        var prefix: ArraySlice<UInt8>?
        var iterator: HTTPBody.Iterator

        init(prefix: ArraySlice<UInt8>, iterator: HTTPBody.Iterator) {
            self.prefix = prefix
            self.iterator = iterator
        }

        func next() async throws -> ArraySlice<UInt8>? {
            if let prefix {
                self.prefix = nil
                return prefix
            }
            return try await iterator.next()
        }
    }

    private struct RemainderSequence: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let remainder: Remainder

        func makeAsyncIterator() -> Iterator { Iterator(remainder: remainder) }

        struct Iterator: AsyncIteratorProtocol {
            let remainder: Remainder
            mutating func next() async throws -> ArraySlice<UInt8>? { try await remainder.next() }
        }
    }
}
