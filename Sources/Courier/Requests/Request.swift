import Foundation
import HTTPTypes

/// A request as a value: the same thing as an ``APIRequest`` struct, built inline.
///
/// ```swift
/// let request = Request<[User]>(path: "/users", query: [.init(name: "page", value: "2")])
/// let users = try await client.send(request)
///
/// let created = try await client.send(
///     Request<User>(method: .post, path: "/users", body: .json(NewUser(name: "Ada"))))
///
/// let avatar = Request<Data>(path: "/users/{id}/avatar", pathParameters: ["id": id])
///     .header("X-Trace", traceID)     // refused at send time if it holds CR or LF
/// ```
public struct Request<Response: Sendable>: APIRequest {
    /// The function that turns a response into a value.
    public typealias Decoder = @Sendable (HTTPResponse, Data, DecodingContext) throws -> Response

    /// The HTTP method (GET unless given).
    public var method: HTTPRequest.Method
    /// The path, relative to the base URL; `{name}` placeholders are filled from
    /// ``pathParameters``, each value percent-encoded as one segment.
    public var path: RequestPath
    /// Values for the path's `{name}` placeholders.
    public var pathParameters: [String: String]
    /// The query items, in order.
    public var query: [URLQueryItem]
    /// The header fields; a value with CR, LF or NUL set through them fails the request when
    /// it is sent (see ``RequestHeaders``).
    public var headers: RequestHeaders
    /// The body, if any (``RequestBody``: JSON, form, multipart, a file, bytes or a stream).
    public var body: RequestBody?
    /// The per-request settings. They also carry an input error a builder recorded, so a
    /// request built with one fails when sent even after its options were replaced.
    public var options: RequestOptions {
        get {
            guard let deferredEncodingError, storedOptions.deferredEncodingError == nil else { return storedOptions }
            var options = storedOptions
            options.deferredEncodingError = deferredEncodingError
            return options
        }
        set { storedOptions = newValue }
    }
    private var storedOptions: RequestOptions
    private let decoder: Decoder
    /// An input error found by a builder method, thrown when the request is sent.
    package var deferredEncodingError: (any Error)?

    /// Creates a request whose response is decoded by `decode`.
    public init(
        method: HTTPRequest.Method = .get,
        path: RequestPath,
        pathParameters: [String: String] = [:],
        query: [URLQueryItem] = [],
        headers: RequestHeaders = [:],
        body: RequestBody? = nil,
        options: RequestOptions = RequestOptions(),
        decode: @escaping Decoder
    ) {
        self.method = method
        self.path = path
        self.pathParameters = pathParameters
        self.query = query
        self.headers = headers
        self.body = body
        self.storedOptions = options
        self.decoder = decode
    }

    /// The response decoded by the function this request was made with (JSON for a
    /// `Decodable` response, the bytes for `Data`, unless another was given).
    public func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Response {
        try decoder(response, body, context)
    }

    /// A copy with a header added; a name that is not a valid token or a value with CR, LF or
    /// NUL makes the request fail with ``APIError/Kind/encodingFailed`` when sent.
    public func header(_ name: String, _ value: String) -> Request {
        var copy = self
        copy.headers.append(name: name, value: value)
        return copy
    }

    /// A copy with a query item added (`nil` values are left out when sent).
    public func query(_ name: String, _ value: String?) -> Request {
        var copy = self
        copy.query.append(URLQueryItem(name: name, value: value))
        return copy
    }

    /// A copy with different options.
    public func options(_ update: (inout RequestOptions) -> Void) -> Request {
        var copy = self
        update(&copy.options)
        return copy
    }
}

extension Request where Response: Decodable {
    /// Creates a request whose response is decoded from JSON with the client's decoder.
    public init(
        method: HTTPRequest.Method = .get, path: RequestPath, pathParameters: [String: String] = [:],
        query: [URLQueryItem] = [], headers: RequestHeaders = [:], body: RequestBody? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(method: method, path: path, pathParameters: pathParameters, query: query, headers: headers,
                  body: body, options: options) { _, data, context in try context.decodeJSON(Response.self, from: data) }
    }
}

extension Request where Response == Void {
    /// Creates a request whose body is ignored.
    public init(
        method: HTTPRequest.Method = .get, path: RequestPath, pathParameters: [String: String] = [:],
        query: [URLQueryItem] = [], headers: RequestHeaders = [:], body: RequestBody? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(method: method, path: path, pathParameters: pathParameters, query: query, headers: headers,
                  body: body, options: options) { _, _, _ in () }
    }
}


// MARK: - Paths built as strings

extension Request {
    /// Creates a request from a path you built as a `String`, sent as written.
    ///
    /// A string literal, interpolations included, picks the ``RequestPath`` initializer instead,
    /// which encodes each interpolated value as one segment; this one is for a path held in a
    /// variable (a link from a response, a path read from configuration).
    @_disfavoredOverload
    public init(
        method: HTTPRequest.Method = .get, path: String, pathParameters: [String: String] = [:],
        query: [URLQueryItem] = [], headers: RequestHeaders = [:], body: RequestBody? = nil,
        options: RequestOptions = RequestOptions(), decode: @escaping Decoder
    ) {
        self.init(method: method, path: RequestPath(verbatim: path), pathParameters: pathParameters, query: query,
                  headers: headers, body: body, options: options, decode: decode)
    }
}

extension Request where Response: Decodable {
    /// Creates a JSON-decoding request from a path you built as a `String`, sent as written.
    @_disfavoredOverload
    public init(
        method: HTTPRequest.Method = .get, path: String, pathParameters: [String: String] = [:],
        query: [URLQueryItem] = [], headers: RequestHeaders = [:], body: RequestBody? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(method: method, path: RequestPath(verbatim: path), pathParameters: pathParameters, query: query,
                  headers: headers, body: body, options: options)
    }
}

extension Request where Response == Void {
    /// Creates a request whose body is ignored, from a path you built as a `String`.
    @_disfavoredOverload
    public init(
        method: HTTPRequest.Method = .get, path: String, pathParameters: [String: String] = [:],
        query: [URLQueryItem] = [], headers: RequestHeaders = [:], body: RequestBody? = nil,
        options: RequestOptions = RequestOptions()
    ) {
        self.init(method: method, path: RequestPath(verbatim: path), pathParameters: pathParameters, query: query,
                  headers: headers, body: body, options: options)
    }
}
