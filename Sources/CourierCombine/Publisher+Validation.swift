import Courier
import Foundation
import HTTPTypes
#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

extension Publisher where Output == DataResponse, Failure == APIError {
    /// Fails with an ``Courier/APIError`` of kind ``Courier/APIError/Kind/httpError`` unless the
    /// status code is in `codes` (a range, a set, an array — any sequence of `Int`).
    public func validateStatusCode<Codes: Sequence & Sendable>(in codes: Codes) -> AnyPublisher<DataResponse, APIError>
    where Codes.Element == Int {
        tryMap { output in
            let code = output.response.status.code
            guard codes.contains(code) else {
                throw APIError.httpError(statusCode: code, message: output.response.status.reasonPhrase,
                                         response: output.response, body: output.data, request: output.request)
            }
            return output
        }
        .mapError { $0 as? APIError ?? .unknown(request: nil, underlying: $0) }
        .eraseToAnyPublisher()
    }

    /// Fails with an ``Courier/APIError`` of kind ``Courier/APIError/Kind/unexpectedContentType`` unless the
    /// response's media type is `contentType` — with or without parameters:
    /// `hasContentType("text/plain")` accepts `text/plain` and `text/plain; charset=utf-8`.
    public func hasContentType(_ contentType: String) -> AnyPublisher<DataResponse, APIError> {
        let expected = MediaType(contentType)
        return tryMap { output in
            let received = output.response.headerFields[.contentType]
            guard let received, let expected, let type = MediaType(received), type.hasSameEssence(as: expected) else {
                throw APIError.unexpectedContentType(request: output.request, expected: [contentType], received: received)
            }
            return output
        }
        .mapError { $0 as? APIError ?? .unknown(request: nil, underlying: $0) }
        .eraseToAnyPublisher()
    }

    /// Decodes the body as JSON, failing with an ``Courier/APIError`` of kind ``Courier/APIError/Kind/decodingFailed``.
    ///
    /// - Parameter decoder: the decoder to use; `nil` (the default) uses the decoder of the
    ///   client that sent the request (``DataResponse/decoder``, its configuration's), as
    ///   ``Courier/APIClient/publisher(for:)`` and `send` do — so `useSnakeCaseKeys()` on the
    ///   client applies here too. A plain `JSONDecoder()` only when the response came from none.
    public func decode<T: Decodable & Sendable>(_ type: T.Type, decoder: JSONDecoder? = nil) -> AnyPublisher<T, APIError> {
        tryMap { output in
            do {
                return try (decoder ?? output.decoder ?? JSONDecoder()).decode(T.self, from: output.data)
            } catch {
                throw APIError.decodingFailed(request: output.request, type: String(describing: T.self), underlying: error, body: output.data)
            }
        }
        .mapError { $0 as? APIError ?? .unknown(request: nil, underlying: $0) }
        .eraseToAnyPublisher()
    }

    /// The body alone, like `.map { $0.data }` on a `URLSession` data task publisher.
    public func data() -> AnyPublisher<Data, APIError> {
        map(\.data).eraseToAnyPublisher()
    }
}
