import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A response body as an async sequence of byte chunks, read as they arrive.
///
/// Returned by ``APIClient/bytes(for:)``. It can be iterated once. Stopping the iteration
/// (leaving the `for` loop, or cancelling the task) ends the exchange and releases the
/// connection. Errors are ``APIError``s, like those of the rest of the client.
public struct ByteStream: AsyncSequence, Sendable {
    public typealias Element = ArraySlice<UInt8>

    /// The response head.
    public let response: HTTPResponse
    /// The request, for logs.
    public let request: RequestSummary
    /// The body's length when the server declared it.
    public let expectedLength: Int64?

    let body: HTTPBody?
    let limit: Int?
    let timeout: Duration

    /// Reads the chunks; errors are mapped to ``APIError``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator?
        var received = 0
        let limit: Int?
        let summary: RequestSummary
        let timeout: Duration

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> ArraySlice<UInt8>? {
            guard base != nil else { return nil }
            do {
                guard let chunk = try await base!.next() else {
                    base = nil
                    return nil
                }
                received += chunk.count
                if let limit, received > limit {
                    base = nil
                    throw APIError.resourceTooLarge(request: summary, limit: limit)
                }
                return chunk
            } catch {
                base = nil
                throw APIClient.map(error, summary: summary, timeout: timeout)
            }
        }
    }

    /// Starts reading the body (once).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: body?.makeAsyncIterator(), limit: limit, summary: request, timeout: timeout)
    }

    /// Collects the rest of the body into memory, up to `limit` bytes.
    public func collect(upTo limit: Int) async throws -> Data {
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= limit else { throw APIError.resourceTooLarge(request: request, limit: limit) }
            data.append(contentsOf: chunk)
        }
        return data
    }
}
