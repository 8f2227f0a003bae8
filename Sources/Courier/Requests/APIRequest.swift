import Foundation
import HTTPTypes

/// A request that knows the type of its response.
///
/// Conform a small struct to describe an endpoint; everything but ``path`` has a default:
///
/// ```swift
/// struct GetUser: APIRequest {
///     typealias Response = User
///     let id: String
///     var path: RequestPath { "/users/\(id)" }            // id encoded as one segment
/// }
/// let user = try await client.send(GetUser(id: "42"))
/// ```
///
/// `path` is relative to the client's base URL (whose own path is kept), or an absolute
/// `http(s)://` URL used as is. A value interpolated into a ``RequestPath`` is percent-encoded
/// as one segment (`"../admin?x=1"` becomes `..%2Fadmin%3Fx%3D1`). `{name}` in the path is
/// replaced by the same encoding of `pathParameters["name"]`, `{+name}` inserts a raw sub-path
/// on purpose, and `{name=default}` uses `default` when the parameter is absent.
///
/// Requests written for other clients keep working: a `String` path (sent as written, with a
/// deprecation warning), `var method: HTTPMethod` with your own string enum,
/// `var headers: [String: String]?`, `var queryItems: [URLQueryItem]?`,
/// `var queryParameters: [String: String]?`, `var body: Data?` and
/// `let bodyParameters: [String: any Sendable]?` (each with or without the optional) are all
/// sent, and
/// `let timeout: TimeInterval` and `let includeBaseParameters: Bool` are honoured. A `method`,
/// `headers`, `body`, `bodyParameters`, `queryItems` or `queryParameters` of a type Courier
/// cannot send fails the request with an error naming it, instead of being ignored.
///
/// `decode` has defaults for `Decodable` (JSON, with the client's decoder), `Data`, `String`,
/// and ``Empty`` (for `204 No Content` and `HEAD`).
public protocol APIRequest<Response>: Sendable {
    /// The type of the decoded response.
    associatedtype Response: Sendable
    /// The type of ``method``: `HTTPRequest.Method` by default. A `String`, or an enum whose
    /// raw value is a `String` (`enum HTTPMethod: String { case get = "GET" }`, as many apps
    /// declare), also works; a value that is not a standard method fails the request.
    associatedtype Method = HTTPRequest.Method
    /// The type of ``path``: ``RequestPath`` by default (interpolated values encoded as one
    /// segment each); `String` compiles, with a deprecation warning, and is sent as written.
    associatedtype Path: RequestPathConvertible = RequestPath
    /// The type of ``headers``: ``RequestHeaders`` by default (a value with CR, LF or NUL fails
    /// the request); `[String: String]` and `[String: String]?` are sent too, each value checked,
    /// and so is swift-http-types' `HTTPFields` (which turns CR, LF and NUL into spaces as they are
    /// set, so Courier cannot refuse them). Any other type fails the request with an error that
    /// names it — it is never ignored.
    associatedtype Headers = RequestHeaders
    /// The type of ``body``: `RequestBody?` by default; `RequestBody`, and `Data` or `Data?`
    /// (sent as they are), work too. Any other type fails the request with an error that names
    /// it. (The type is whatever the request declares, so `var body: RequestBody { .json(x) }`,
    /// without the optional, is the body too, not a property of its own beside it.)
    associatedtype Body = RequestBody?
    /// The type of ``queryItems``: `[URLQueryItem]?` by default; `[URLQueryItem]` works too. Any
    /// other type fails the request with an error that names it.
    associatedtype QueryItems = [URLQueryItem]?
    /// The type of ``queryParameters``: `[String: String]?` by default; `[String: String]`
    /// works too. Any other type fails the request with an error that names it.
    associatedtype QueryParameters = [String: String]?
    /// The type of ``bodyParameters``: `[String: String]?` by default; `[String: any Sendable]`
    /// and `[String: String]`, with or without the optional, work too. Any other type fails the
    /// request with an error that names it.
    associatedtype BodyParameters = [String: String]?

    /// The HTTP method. Default: `GET`.
    var method: Method { get }
    /// The path, relative to the base URL, or an absolute URL. May contain `{name}` templates;
    /// interpolated values are encoded as one segment (see ``RequestPath``).
    var path: Path { get }
    /// Values for the `{name}` templates in ``path``. Default: none.
    var pathParameters: [String: String] { get }
    /// Query items, in order. Items whose value is `nil` are left out. Default: none.
    var query: [URLQueryItem] { get }
    /// More query items, sent after ``query``: the spelling that requests written for
    /// `URLComponents` use (`var queryItems: [URLQueryItem]?`, with or without the optional).
    /// Default: none.
    var queryItems: QueryItems { get }
    /// More query items as a dictionary, sent after ``queryItems`` in the order of their names:
    /// the spelling of layered API clients (`let queryParameters: [String: String]?`, with or
    /// without the optional). Default: none.
    var queryParameters: QueryParameters { get }
    /// Header fields; they win over the client's default headers. Default: none.
    var headers: Headers { get }
    /// The body. Default: none.
    var body: Body { get }
    /// The body as a dictionary, sent as a JSON object (keys sorted), in the spelling of layered
    /// API clients (`let bodyParameters: [String: Any]?`, made `[String: any Sendable]?`). A
    /// request that has both a ``body`` and `bodyParameters`, or values JSON cannot hold, fails
    /// naming it. Default: none.
    var bodyParameters: BodyParameters { get }
    /// Per-request options: timeout, retry, authentication, base parameters… Default: `.init()`.
    var options: RequestOptions { get }
    /// Whether the client's base parameters go with this request, in the spelling of layered
    /// API clients (`let includeBaseParameters = false`). They go only when both this and
    /// ``RequestOptions/includeBaseParameters`` say so. Default: `true`.
    var includeBaseParameters: Bool { get }
    /// The request's timeout in seconds, in the spelling of layered API clients
    /// (`let timeout: TimeInterval = 30`): used when ``RequestOptions/timeout`` is not set, in
    /// place of the configuration's. A value that is not a positive number fails the request.
    /// Default: `.infinity`, which leaves the timeout to the options and the configuration.
    var timeout: TimeInterval { get }

    /// Turns the response into a value. Called only for acceptable status codes.
    func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Response

    /// ``body`` (or ``bodyParameters``) as Courier sends it, or an error naming a type it cannot send. Courier
    /// implements it for every request type: do not implement or call it in your own (a
    /// request type that wraps another, as Courier's own adapters do, forwards it).
    ///
    /// It is a requirement only so that each request type gets the implementation compiled
    /// for its own `Body`: read through the client's generic code, `body`'s type was looked up
    /// in the runtime's metadata cache for every request, even
    /// for the usual `RequestBody?` that is `nil`.
    func _wireBody() throws -> RequestBody?

    /// ``queryItems`` followed by ``queryParameters`` (sorted by name) as Courier sends them, or
    /// an error naming a type it cannot send. Like `_wireBody()`, implemented by Courier for
    /// every request type, compiled for its own types (the usual `nil`s cost one check each).
    func _wireQuery() throws -> [URLQueryItem]
}

extension APIRequest where Method == HTTPRequest.Method {
    /// `GET`.
    public var method: HTTPRequest.Method { .get }
}

extension APIRequest where Headers == RequestHeaders {
    /// No headers of its own.
    public var headers: RequestHeaders { [:] }
}

extension APIRequest where Body == RequestBody? {
    /// No body.
    public var body: RequestBody? { nil }
}

extension APIRequest where QueryItems == [URLQueryItem]? {
    /// No more query items.
    public var queryItems: [URLQueryItem]? { nil }
}

extension APIRequest where QueryParameters == [String: String]? {
    /// No query dictionary.
    public var queryParameters: [String: String]? { nil }
}

extension APIRequest where BodyParameters == [String: String]? {
    /// No body dictionary.
    public var bodyParameters: [String: String]? { nil }
}

extension APIRequest {
    /// No path parameters.
    public var pathParameters: [String: String] { [:] }
    /// No query items.
    public var query: [URLQueryItem] { [] }
    /// Default options.
    public var options: RequestOptions { RequestOptions.unset }
    /// The base parameters go with the request unless its options say otherwise.
    public var includeBaseParameters: Bool { true }
    /// No timeout of its own: the options' or the configuration's applies.
    public var timeout: TimeInterval { .infinity }
}
