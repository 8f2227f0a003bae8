import Courier
import Foundation
import HTTPTypes

/// Sending a descriptor: one overload per supported return type, chosen by the compiler from the
/// protocol method's return type.
///
/// | Return type | Decoding |
/// | --- | --- |
/// | any `Decodable` | JSON, with the client's decoder |
/// | `Data` | the body as it arrived |
/// | `String` | the body as UTF-8 text |
/// | `Void` | the body is ignored |
/// | `Response<T>` | any of the above, with the HTTP response, raw body and timing |
extension EndpointDescriptor {
    /// The `Request` this call becomes: the same value a hand-written request would be,
    /// so middleware, logging, stubs and limits treat it the same.
    /// A `@FormURLEncoded` body parameter not yet flattened (the `send` methods flatten it with
    /// the client's encoder first) is flattened with a plain `JSONEncoder`.
    public func request<Value: Sendable>(decode: @escaping Request<Value>.Decoder) -> Request<Value> {
        if pendingFormBody != nil { return resolvingFormBody(with: JSONEncoder()).request(decode: decode) }
        var request = Request<Value>(method: method, path: RequestPath(verbatim: path), pathParameters: pathParameters, query: query,
                                     headers: RequestHeaders(headers), body: body, options: options, decode: decode)
        request.deferredEncodingError = deferredEncodingError
        return request
    }

    /// Sends the call and decodes a JSON response.
    public func send<Value: Decodable & Sendable>(on client: APIClient) async throws -> Value {
        try await client.send(resolvingFormBody(with: client.configuration.encoder).request(decode: Self.json))
    }

    /// Sends the call and returns the body as bytes.
    public func send(on client: APIClient) async throws -> Data {
        try await client.send(resolvingFormBody(with: client.configuration.encoder).request(decode: Self.data))
    }

    /// Sends the call and returns the body as UTF-8 text.
    public func send(on client: APIClient) async throws -> String {
        try await client.send(resolvingFormBody(with: client.configuration.encoder).request(decode: Self.string))
    }

    /// Sends the call and ignores the body.
    public func send(on client: APIClient) async throws {
        try await client.send(resolvingFormBody(with: client.configuration.encoder).request(decode: Self.void))
    }

    /// Sends the call and returns the decoded JSON value with the HTTP response.
    public func send<Value: Decodable & Sendable>(on client: APIClient) async throws -> Response<Value> {
        try await client.response(for: resolvingFormBody(with: client.configuration.encoder).request(decode: Self.json))
    }

    /// Sends the call and returns the bytes with the HTTP response.
    public func send(on client: APIClient) async throws -> Response<Data> {
        try await client.response(for: resolvingFormBody(with: client.configuration.encoder).request(decode: Self.data))
    }

    /// Sends the call and returns the text with the HTTP response.
    public func send(on client: APIClient) async throws -> Response<String> {
        try await client.response(for: resolvingFormBody(with: client.configuration.encoder).request(decode: Self.string))
    }

    /// Sends the call and returns the HTTP response alone (`HEAD`, `204`).
    public func send(on client: APIClient) async throws -> Response<Void> {
        try await client.response(for: resolvingFormBody(with: client.configuration.encoder).request(decode: Self.void))
    }

    // MARK: Decoders

    static func json<Value: Decodable>(_: HTTPResponse, _ body: Data, _ context: DecodingContext) throws -> Value {
        try context.decodeJSON(Value.self, from: body)
    }

    static func data(_: HTTPResponse, _ body: Data, _: DecodingContext) -> Data { body }

    static func string(_: HTTPResponse, _ body: Data, _ context: DecodingContext) throws -> String {
        try context.decodeString(from: body)
    }

    static func void(_: HTTPResponse, _: Data, _: DecodingContext) {}
}
