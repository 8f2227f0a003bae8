import AsyncHTTPClient
import Courier
import NIOCore
import OpenAPIRuntime

/// A request `HTTPBody` as the `ByteBuffer`s AsyncHTTPClient writes.
struct ByteBufferSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let body: HTTPBody

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            return ByteBuffer(bytes: chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.makeAsyncIterator()) }
}

/// AsyncHTTPClient's response body as the byte chunks `HTTPBody` carries, with its errors
/// mapped to ``TransportError``. Abandoning the iteration makes AsyncHTTPClient cancel the
/// request and close the connection.
struct ResponseBodySequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let body: HTTPClientResponse.Body

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        mutating func next() async throws -> ArraySlice<UInt8>? {
            do {
                guard let buffer = try await base.next() else { return nil }
                return ArraySlice(buffer.readableBytesView)
            } catch {
                throw AsyncHTTPClientErrors.map(error)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.makeAsyncIterator()) }
}
