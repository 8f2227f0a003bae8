import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Collects a response body into memory, never holding more than the limit.
enum ResponseCollector {
    /// The body's bytes. Throws ``APIError/resourceTooLarge(request:limit:)`` as soon as the
    /// declared length or the bytes received pass `limit`; the body's iteration is then
    /// abandoned, which makes the transport cancel the exchange.
    static func collect(_ body: HTTPBody?, head: HTTPResponse, limit: Int, summary: RequestSummary) async throws -> Data {
        guard let body else { return Data() }
        var expected: Int?
        if case .known(let length) = body.length { expected = Int(length) }
        else if let header = head.headerFields[.contentLength], let length = Int(header), head.headerFields[.contentEncoding] == nil {
            expected = length
        }
        if let expected, expected > limit {
            throw APIError.resourceTooLarge(request: summary, limit: limit)
        }
        var data = Data()
        if let expected { data.reserveCapacity(expected) }
        for try await chunk in body {
            if data.count + chunk.count > limit {
                throw APIError.resourceTooLarge(request: summary, limit: limit)
            }
            data.append(contentsOf: chunk)
        }
        return data
    }
}
