import Courier
import Foundation
import HTTPTypes

/// A request as a ``StubTransport`` received it, for assertions.
public struct RecordedRequest: Sendable {
    /// The request head as sent.
    public var request: HTTPRequest
    /// The body bytes (empty when there was none).
    public var body: Data
    /// The operation name from the context.
    public var operationName: String
    /// The attempt number from the context (1 for the first try).
    public var attempt: Int
    /// The path relative to the base URL's path (`/users/1` for `/api/v2/users/1` under
    /// `https://host/api/v2`), or the whole path when the request went elsewhere.
    public var relativePath: String = ""

    /// The method.
    public var method: HTTPRequest.Method { request.method }
    /// The request target: path and query, encoded as on the wire.
    public var target: String { request.path ?? "/" }
    /// The path without the query.
    public var path: String { String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]) }
    /// The encoded query, if any.
    public var query: String? {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.count > 1 ? String(parts[1]) : nil
    }
    /// The absolute URL.
    public var url: String { request.originString + target }
    /// The decoded query items, in order.
    public var queryItems: [URLQueryItem] {
        URLComponents(string: url)?.queryItems ?? []
    }
    /// The header fields.
    public var headers: HTTPFields { request.headerFields }
    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
    /// The body decoded as JSON.
    public func decodedBody<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(T.self, from: body)
    }
}
