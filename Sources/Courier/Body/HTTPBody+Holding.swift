import Foundation
import OpenAPIRuntime

extension HTTPBody {
    /// A body of `data`'s bytes that can be read as often as asked, and copies them into an
    /// `ArraySlice` only when it is read. (`HTTPBody(data)` copies them at once; a transport
    /// that leaves the bytes in a ``WholeResponseBody`` usually sees its body never read.)
    package static func holding(_ data: Data) -> HTTPBody {
        HTTPBody(OneChunk(data: data), length: .known(Int64(data.count)), iterationBehavior: .multiple)
    }

    /// `data` as the only chunk of a sequence; each iteration starts from a copy of the value,
    /// so the sequence can be iterated again. (An async sequence: `HTTPBody`'s initializer for
    /// synchronous ones is not public.)
    private struct OneChunk: AsyncSequence, AsyncIteratorProtocol, Sendable {
        typealias Element = ArraySlice<UInt8>
        typealias Failure = Never

        var data: Data?

        func makeAsyncIterator() -> OneChunk { self }

        mutating func next() async -> ArraySlice<UInt8>? {
            guard let data else { return nil }
            self.data = nil
            return ArraySlice(data)
        }
    }
}
