import Foundation
import OpenAPIRuntime

extension HTTPBody {
    /// A body of `data`'s bytes that can be read as often as asked, and copies them into an
    /// `ArraySlice` only when it is read. (`HTTPBody(data)` copies them at once; a transport
    /// that leaves the bytes in a ``WholeResponseBody`` usually sees its body never read.)
    ///
    /// The trade-off: a middleware that reads the body and hands on a body of its own (a cache
    /// storing the response, body logging at `debug`) makes the client collect through it, and
    /// each read of this body copies the bytes once more. Over AsyncHTTPClient such a response
    /// is then copied three times (network buffers → `Data` → `ArraySlice` → the caller's
    /// `Data`), one more than when the transport held an `ArraySlice`; without such a
    /// middleware, once (it was twice), and over URLSession at most once.
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
