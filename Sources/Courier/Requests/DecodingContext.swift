import Foundation
import HTTPTypes

/// What ``APIRequest/decode(_:body:context:)`` gets besides the response: the client's JSON
/// decoder and a summary of the request, for error messages.
public struct DecodingContext: Sendable {
    /// The client's JSON decoder (``APIConfiguration/decoder``).
    public var decoder: JSONDecoder
    /// The request being decoded, for error messages.
    public var request: RequestSummary

    /// Creates a decoding context.
    public init(decoder: JSONDecoder, request: RequestSummary) {
        self.decoder = decoder
        self.request = request
    }

    /// Decodes JSON, treating an empty body as `{}`-less: `Empty` and optionals accept it, other
    /// types fail with a clear "body is empty" error. `Data` and `String` (and `Data?` and
    /// `String?`, `nil` for an empty body) are the bytes and the UTF-8 text, never JSON.
    public func decodeJSON<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        if T.self == Empty.self { return Empty() as! T }
        if T.self == Data.self { return body as! T }
        if T.self == String.self { return try decodeString(from: body) as! T }
        if T.self == Data?.self { return (body.isEmpty ? nil : body) as Data? as! T }
        if T.self == String?.self { return (body.isEmpty ? nil : try decodeString(from: body)) as String? as! T }
        if body.isEmpty, T.self is any ExpressibleByNilLiteral.Type {
            return try decodeEmpty(T.self, from: body)   // `User?` answered by an empty 204: `nil`
        }
        return try decodeWithDecoder(T.self, from: body)
    }

    /// An empty body as a `T` that can be `nil` (an optional): `nil`. Apart from
    /// ``decodeJSON(_:from:)`` and never inlined there: the cast needs `Optional<T>`'s metadata,
    /// which the runtime looked up on that function's entry, for every decode, not only for an
    /// empty body.
    @inline(never)
    private func decodeEmpty<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        if let optional = T.self as? any ExpressibleByNilLiteral.Type, let none = optional.init(nilLiteral: ()) as? T {
            return none
        }
        return try decodeWithDecoder(T.self, from: body)
    }

    /// `body` through the client's `JSONDecoder`; its failure as ``APIError/Kind/decodingFailed``.
    private func decodeWithDecoder<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        do {
            return try decoder.decode(T.self, from: body)
        } catch {
            throw APIError.decodingFailed(request: request, type: String(describing: T.self), underlying: error, body: body)
        }
    }

    /// Decodes UTF-8 text; invalid UTF-8 is a decoding error, never silently replaced.
    public func decodeString(from body: Data) throws -> String {
        guard let text = String(data: body, encoding: .utf8) else {
            let error = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The body is not valid UTF-8"))
            throw APIError.decodingFailed(request: request, type: "String", underlying: error, body: body)
        }
        return text
    }
}
