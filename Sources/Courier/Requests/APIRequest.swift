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
///     var path: String { "/users/{id}" }
///     var pathParameters: [String: String] { ["id": id] }   // encoded as one segment
/// }
/// let user = try await client.send(GetUser(id: "42"))
/// ```
///
/// `path` is relative to the client's base URL (whose own path is kept), or an absolute
/// `http(s)://` URL used as is. `{name}` in the path is replaced by the percent-encoded value of
/// `pathParameters["name"]` (one segment: `"../admin"` becomes `..%2Fadmin`), `{+name}` inserts a
/// raw sub-path on purpose, and `{name=default}` uses `default` when the parameter is absent.
///
/// `decode` has defaults for `Decodable` (JSON, with the client's decoder), `Data`, `String`,
/// and ``Empty`` (for `204 No Content` and `HEAD`).
public protocol APIRequest<Response>: Sendable {
    /// The type of the decoded response.
    associatedtype Response: Sendable

    /// The HTTP method. Default: `GET`.
    var method: HTTPRequest.Method { get }
    /// The path, relative to the base URL, or an absolute URL. May contain `{name}` templates.
    var path: String { get }
    /// Values for the `{name}` templates in ``path``. Default: none.
    var pathParameters: [String: String] { get }
    /// Query items, in order. Items whose value is `nil` are left out. Default: none.
    var query: [URLQueryItem] { get }
    /// Header fields; they win over the client's default headers. Default: none.
    var headers: HTTPFields { get }
    /// The body. Default: none.
    var body: RequestBody? { get }
    /// Per-request options: timeout, retry, authentication, base parameters… Default: `.init()`.
    var options: RequestOptions { get }

    /// Turns the response into a value. Called only for acceptable status codes.
    func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Response
}

extension APIRequest {
    /// `GET`.
    public var method: HTTPRequest.Method { .get }
    /// No path parameters.
    public var pathParameters: [String: String] { [:] }
    /// No query items.
    public var query: [URLQueryItem] { [] }
    /// No headers of its own.
    public var headers: HTTPFields { [:] }
    /// No body.
    public var body: RequestBody? { nil }
    /// Default options.
    public var options: RequestOptions { RequestOptions() }
}
