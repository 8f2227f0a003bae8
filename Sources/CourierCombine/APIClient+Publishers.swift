import Courier
import Foundation
import HTTPTypes
#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

/// A response's raw body and head, as published by `APIClient.dataPublisher(for:)`.
public struct DataResponse: Sendable {
    /// The body.
    public var data: Data
    /// The response head.
    public var response: HTTPResponse
    /// The request, for errors.
    public var request: RequestSummary
    /// The decoder of the client that sent the request (its `APIConfiguration.decoder`):
    /// what `Publisher.decode(_:decoder:)` uses when it is given none, so that a
    /// client configured with `useSnakeCaseKeys()` decodes snake_case here too.
    public var decoder: JSONDecoder?

    /// Creates a value (tests build their own).
    public init(data: Data, response: HTTPResponse, request: RequestSummary, decoder: JSONDecoder? = nil) {
        self.data = data
        self.response = response
        self.request = request
        self.decoder = decoder
    }
}

extension APIClient {
    /// A publisher that sends `request` when subscribed, publishes the decoded response and
    /// finishes, or fails with ``Courier/APIError``. Cancelling the subscription cancels the exchange.
    ///
    /// Combine on Apple platforms, OpenCombine elsewhere; the same source works on both.
    ///
    /// ```swift
    /// cancellable = client.publisher(for: GetUser(id: "42"))
    ///     .receive(on: DispatchQueue.main)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { user = $0 })
    /// ```
    public func publisher<R: APIRequest>(for request: R) -> AnyPublisher<R.Response, APIError> {
        TaskPublisher { try await self.send(request) }.eraseToAnyPublisher()
    }

    /// A publisher of the raw response — whatever its status in 100–599 (a status outside the
    /// range HTTP defines, 600–999, is still an ``Courier/APIError`` of kind `httpError`) — for
    /// pipelines that validate and
    /// decode themselves with ``validateStatusCode(in:)``, ``hasContentType(_:)`` and
    /// ``decode(_:decoder:)``, as Combine request pipelines do.
    ///
    /// ```swift
    /// client.dataPublisher(for: Request<Data>(path: "/users"))
    ///     .validateStatusCode(in: 200..<300)
    ///     .hasContentType("application/json")
    ///     .decode([User].self)
    /// ```
    public func dataPublisher<R: APIRequest>(for request: R) -> AnyPublisher<DataResponse, APIError> {
        let unchecked = AnyStatusRequest(base: request)
        return TaskPublisher {
            let response = try await self.response(for: unchecked)
            return DataResponse(data: response.body, response: response.response, request: response.request,
                                decoder: self.configuration.decoder)
        }.eraseToAnyPublisher()
    }
}

/// A request that accepts every status, so that the publisher's operators decide. It keeps
/// the caller's request name and any input error found while that request was built (its
/// options carry it).
struct AnyStatusRequest<Base: APIRequest>: APIRequest {
    typealias Response = Data
    let base: Base
    var method: Base.Method { base.method }
    var path: Base.Path { base.path }
    var pathParameters: [String: String] { base.pathParameters }
    var query: [URLQueryItem] { base.query }
    var queryItems: Base.QueryItems { base.queryItems }
    var queryParameters: Base.QueryParameters { base.queryParameters }
    var headers: Base.Headers { base.headers }
    var body: Base.Body { base.body }
    /// The base request's, which is compiled for its own `Body` and `BodyParameters` types
    /// (this type's default would cast `Base.Body` at run time) and includes its `bodyParameters`.
    func _wireBody() throws -> RequestBody? { try base._wireBody() }
    /// The base request's, compiled for its own query types.
    func _wireQuery() throws -> [URLQueryItem] { try base._wireQuery() }
    var includeBaseParameters: Bool { base.includeBaseParameters }
    var timeout: TimeInterval { base.timeout }
    var options: RequestOptions {
        var options = base.options
        options.acceptableStatusCodes = Set(100...599)
        if options.operationName == nil { options.operationName = _typeName(Base.self, qualified: false) }
        return options
    }

    func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Data { body }
}
