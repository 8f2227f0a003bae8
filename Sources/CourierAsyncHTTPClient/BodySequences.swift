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
///
/// AsyncHTTPClient's own deadline ends when the response head arrives, so the request's
/// deadline is checked again as each chunk arrives; a server that stops sending altogether is
/// cut off by the client's idle read timeout (`HTTPClient.Configuration.timeout.read`).
struct ResponseBodySequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let body: HTTPClientResponse.Body
    let deadline: ContinuousClock.Instant

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let deadline: ContinuousClock.Instant

        mutating func next() async throws -> ArraySlice<UInt8>? {
            let buffer: ByteBuffer?
            do {
                buffer = try await base.next()
            } catch {
                throw AsyncHTTPClientErrors.map(error)
            }
            guard let buffer else { return nil }
            if ContinuousClock.now > deadline {
                throw TransportError(.timeout, "the deadline passed while the response body was streaming")
            }
            return ArraySlice(buffer.readableBytesView)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.makeAsyncIterator(), deadline: deadline) }
}
