import Foundation
import HTTPTypes

/// Everything that can go wrong when Courier sends a request, as cases you can switch over.
///
/// Each case carries what you need to debug it: the request (method and URL, secrets
/// redacted), the status and a prefix of the body for HTTP errors, the underlying error, and
/// the coding path for decoding failures. `description` is one readable line:
///
/// ```
/// HTTP 404 for GET https://api.example.com/v1/users/7: No user with id 7 — body: {"error":"not_found",...
/// ```
///
/// Task cancellation is reported as Swift's `CancellationError` by the async API; the
/// completion-handler API reports it as ``cancelled(request:)``.
public enum APIError: Error, Sendable {
    /// The URL could not be built or is not allowed (scheme other than http/https, a port out of
    /// range, `user:password` in the URL, a path parameter that is `.` or `..`).
    case invalidURL(String, reason: String)
    /// The request could not be encoded: a body encoding failure, a header with CR/LF, a
    /// missing path parameter. `underlying` says which.
    case encodingFailed(request: RequestSummary, underlying: any Error)
    /// The server answered with a status outside the acceptable codes.
    /// `message` is taken from the body's `message`/`error`/`detail` field when it has one.
    case httpError(statusCode: Int, message: String?, response: HTTPResponse, body: Data, request: RequestSummary)
    /// The body could not be decoded into the expected type.
    case decodingFailed(request: RequestSummary, type: String, underlying: any Error, body: Data)
    /// The response's content type was not the one expected.
    case unexpectedContentType(request: RequestSummary, expected: [String], received: String?)
    /// The request's deadline passed (connect, response or body).
    case timeout(request: RequestSummary, after: Duration)
    /// The response body was larger than the allowed maximum; the exchange was cancelled.
    case resourceTooLarge(request: RequestSummary, limit: Int)
    /// The network failed (connection refused or lost, TLS, a redirect Courier refused).
    case network(request: RequestSummary, underlying: any Error)
    /// The request was cancelled (completion-handler API; async callers get `CancellationError`).
    case cancelled(request: RequestSummary?)
    /// Anything else.
    case unknown(request: RequestSummary?, underlying: any Error)
}

extension APIError {
    /// The request this error is about, when known.
    public var request: RequestSummary? {
        switch self {
        case .invalidURL: return nil
        case .encodingFailed(let r, _), .httpError(_, _, _, _, let r), .decodingFailed(let r, _, _, _),
             .unexpectedContentType(let r, _, _), .timeout(let r, _), .resourceTooLarge(let r, _), .network(let r, _):
            return r
        case .cancelled(let r), .unknown(let r, _):
            return r
        }
    }

    /// The HTTP status code, for ``httpError(statusCode:message:response:body:request:)``.
    public var statusCode: Int? {
        if case .httpError(let code, _, _, _, _) = self { return code }
        return nil
    }

    /// The underlying error, when there is one.
    public var underlyingError: (any Error)? {
        switch self {
        case .encodingFailed(_, let e), .decodingFailed(_, _, let e, _), .network(_, let e), .unknown(_, let e): return e
        default: return nil
        }
    }
}
