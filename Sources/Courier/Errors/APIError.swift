import Foundation
import HTTPTypes

/// Everything that can go wrong when Courier sends a request: what kind of failure it was, for
/// which request, and what the server or the network said.
///
/// `APIError` is a struct with a ``kind`` rather than an enum, so new kinds can be added without
/// breaking your `switch` statements. Match on the kind, read the named properties:
///
/// ```swift
/// do {
///     let user = try await client.send(GetUser(id: "42"))
/// } catch let error as APIError where error.statusCode == 404 {
///     showNotFound()
/// } catch let error as APIError {
///     switch error.kind {
///     case .timeout, .network: showOfflineBanner()
///     case .authentication: signOut()
///     default: report(error)        // one readable line, secrets redacted
///     }
/// }
/// ```
///
/// `description` is one readable line:
///
/// ```
/// HTTP 404 for GET https://api.example.com/v1/users/7: No user with id 7 — body: {"error":"not_found",...
/// ```
///
/// ## Equality
///
/// `APIError` is `Equatable`, so it can sit in `Result<Value, APIError>` inside an `Equatable`
/// action or state (The Composable Architecture does this). Two errors are equal when their
/// ``kind``, ``statusCode``, ``request`` and ``message`` are equal and their underlying errors
/// have the same type and the same description (two underlying errors of types that are not
/// `Equatable` cannot be compared otherwise). The body and the response head are not compared.
///
/// ## Cancellation
///
/// The async API reports cancellation of the calling task as Swift's `CancellationError`, like
/// every `async` API. APIs that deliver a `Result<_, APIError>` (completion handlers, Combine)
/// report it as an error of kind ``Kind/cancelled``.
public struct APIError: Error, Sendable {
    /// What kind of failure an ``APIError`` is. New kinds may be added in minor releases: keep
    /// a `default:` in a `switch`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The URL could not be built or is not allowed (scheme other than http/https, a port
        /// out of range, `user:password` in the URL). A path value that is `.` or `..` is
        /// ``encodingFailed``: the request's values, not the URL, are at fault.
        public static let invalidURL = Kind("invalid URL")
        /// The request could not be encoded: a body encoding failure, a header with CR/LF, a
        /// missing path parameter, a path value that is empty, `.` or `..`.
        /// ``APIError/underlyingError`` says which.
        public static let encodingFailed = Kind("encoding failed")
        /// The server answered with a status outside the acceptable codes.
        /// ``APIError/statusCode``, ``APIError/response`` and ``APIError/body`` tell more.
        public static let httpError = Kind("HTTP error")
        /// The body could not be decoded into the expected type.
        public static let decodingFailed = Kind("decoding failed")
        /// The response's content type was not the one expected.
        public static let unexpectedContentType = Kind("unexpected content type")
        /// A deadline passed: the request's (connect, response or body) or a token refresh's.
        public static let timeout = Kind("timeout")
        /// The response body was larger than the allowed maximum; the exchange was cancelled.
        public static let resourceTooLarge = Kind("resource too large")
        /// The network failed (connection refused or lost, TLS, a redirect Courier refused).
        public static let network = Kind("network")
        /// The request could not be authenticated: the token provider could not supply a token
        /// or refreshing it failed. The underlying error is an ``AuthenticationError``.
        public static let authentication = Kind("authentication")
        /// The request was cancelled (in `Result`-based APIs; async callers get
        /// `CancellationError`).
        public static let cancelled = Kind("cancelled")
        /// The server's answer broke HTTP's rules in a way no retry can fix, or the content it
        /// delivered is not what it announced: a download's `206` that does not continue the
        /// partial file, a finished file that does not match the server's digest. The
        /// underlying error is a ``DownloadError``; ``APIError/response`` is the answer, when
        /// there was one.
        public static let invalidResponse = Kind("invalid response")
        /// Anything else.
        public static let unknown = Kind("unknown")

        /// The kind's name, e.g. `timeout`.
        public var description: String { name }
    }

    /// The kind-specific facts, private so that kinds can grow without breaking anyone.
    enum Detail: Sendable {
        case none
        case invalidURL(url: String)
        case http(response: HTTPResponse)
        case decoding(type: String)
        case contentType(expected: [String], received: String?)
        case timeout(after: Duration, waitingFor: String?)
        case limit(Int)
        case invalid(response: HTTPResponse?)
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The request this error is about (method and URL, secrets redacted), when known.
    public let request: RequestSummary?
    /// A short human-readable explanation: the server's message for ``Kind/httpError`` (its
    /// body's `message`/`error`/`detail` field, else the reason phrase), the reason for
    /// ``Kind/invalidURL``; `nil` when the kind and the underlying error say it all.
    public let message: String?
    /// The response body (HTTP errors, decoding failures), as far as it was read; empty
    /// otherwise.
    public let body: Data
    /// The error that caused this one, when there is one (a `DecodingError`, a
    /// ``TransportError``, an ``AuthenticationError``…).
    public let underlyingError: (any Error)?
    let detail: Detail
    /// For a download that failed with its partial file kept: what
    /// ``APIClient/download(_:to:resumingFrom:options:progress:)`` needs to continue it, now or
    /// after a relaunch. `nil` for every other error, and for a download that cannot be resumed
    /// (the server gave no strong validator, or the bytes were in a content coding) or whose
    /// partial file was removed (``DownloadOptions/keepsPartialFile``).
    public internal(set) var resumeToken: DownloadResumeToken?
    /// For a resumable upload that failed with its upload resource kept on the server
    /// (``ResumableUploadOptions/deletesOnFailure`` off): what
    /// ``APIClient/upload(_:fromFile:contentType:resumingFrom:options:progress:)`` needs to
    /// continue it. `nil` for every other error.
    public internal(set) var uploadResumeToken: UploadResumeToken?

    init(_ kind: Kind, request: RequestSummary?, message: String? = nil, body: Data = Data(),
         underlying: (any Error)? = nil, detail: Detail = .none) {
        self.kind = kind
        self.request = request
        self.message = message
        self.body = body
        self.underlyingError = underlying
        self.detail = detail
    }
}

// MARK: - Named facts

extension APIError {
    /// The HTTP status code, for ``Kind/httpError`` (and ``Kind/invalidResponse`` when there
    /// was a response).
    public var statusCode: Int? { response?.status.code }

    /// The response head (status and header fields), for ``Kind/httpError`` (and
    /// ``Kind/invalidResponse`` when there was a response).
    public var response: HTTPResponse? {
        switch detail {
        case .http(let response): return response
        case .invalid(let response): return response
        default: return nil
        }
    }

    /// The URL that could not be used, for ``Kind/invalidURL`` (secrets redacted).
    public var invalidURL: String? {
        if case .invalidURL(let url) = detail { return url }
        return nil
    }

    /// The name of the type that could not be decoded, for ``Kind/decodingFailed``.
    public var decodedType: String? {
        if case .decoding(let type) = detail { return type }
        return nil
    }

    /// The content types that would have been accepted, for ``Kind/unexpectedContentType``.
    public var expectedContentTypes: [String] {
        if case .contentType(let expected, _) = detail { return expected }
        return []
    }

    /// The content type the server sent (`nil` when it sent none), for
    /// ``Kind/unexpectedContentType``.
    public var receivedContentType: String? {
        if case .contentType(_, let received) = detail { return received }
        return nil
    }

    /// The time limit that passed, for ``Kind/timeout``.
    public var timeLimit: Duration? {
        if case .timeout(let after, _) = detail { return after }
        return nil
    }

    /// The size limit in bytes that the body exceeded, for ``Kind/resourceTooLarge``.
    public var sizeLimit: Int? {
        if case .limit(let limit) = detail { return limit }
        return nil
    }
}

// MARK: - Making errors

extension APIError {
    /// A URL that could not be built or is not allowed.
    public static func invalidURL(_ url: String, reason: String) -> APIError {
        APIError(.invalidURL, request: nil, message: reason, detail: .invalidURL(url: url))
    }

    /// A request that could not be encoded.
    public static func encodingFailed(request: RequestSummary, underlying: any Error) -> APIError {
        APIError(.encodingFailed, request: request, underlying: underlying)
    }

    /// A status outside the acceptable codes. `message` is the server's explanation, if any.
    public static func httpError(statusCode: Int, message: String?, response: HTTPResponse, body: Data,
                                 request: RequestSummary) -> APIError {
        var response = response
        // HTTPResponse.Status traps outside 0…999: such a code (a test double's) keeps the response's.
        if response.status.code != statusCode, (0...999).contains(statusCode) { response.status = HTTPResponse.Status(code: statusCode) }
        return APIError(.httpError, request: request, message: message, body: body, detail: .http(response: response))
    }

    /// A body that could not be decoded into `type`.
    public static func decodingFailed(request: RequestSummary, type: String, underlying: any Error, body: Data) -> APIError {
        APIError(.decodingFailed, request: request, body: body, underlying: underlying, detail: .decoding(type: type))
    }

    /// A response whose content type is not one of `expected`.
    public static func unexpectedContentType(request: RequestSummary, expected: [String], received: String?) -> APIError {
        APIError(.unexpectedContentType, request: request, detail: .contentType(expected: expected, received: received))
    }

    /// A deadline that passed after `after`. `waitingFor` names what was being waited for when
    /// it was not the response (e.g. "refreshing the access token").
    public static func timeout(request: RequestSummary, after: Duration, waitingFor: String? = nil) -> APIError {
        APIError(.timeout, request: request, detail: .timeout(after: after, waitingFor: waitingFor))
    }

    /// A body larger than `limit` bytes.
    public static func resourceTooLarge(request: RequestSummary, limit: Int) -> APIError {
        APIError(.resourceTooLarge, request: request, detail: .limit(limit))
    }

    /// A network failure.
    public static func network(request: RequestSummary, underlying: any Error) -> APIError {
        APIError(.network, request: request, underlying: underlying)
    }

    /// A request that could not be authenticated; `underlying` is usually an
    /// ``AuthenticationError``.
    public static func authentication(request: RequestSummary, underlying: any Error) -> APIError {
        APIError(.authentication, request: request, underlying: underlying)
    }

    /// A response that broke HTTP's rules, or content that is not what the server announced;
    /// `underlying` says how (a ``DownloadError``).
    public static func invalidResponse(request: RequestSummary, response: HTTPResponse?, underlying: any Error) -> APIError {
        APIError(.invalidResponse, request: request, underlying: underlying, detail: .invalid(response: response))
    }

    /// A cancelled request.
    public static func cancelled(request: RequestSummary?) -> APIError {
        APIError(.cancelled, request: request)
    }

    /// Any other failure.
    public static func unknown(request: RequestSummary?, underlying: any Error) -> APIError {
        APIError(.unknown, request: request, underlying: underlying)
    }
}

// MARK: - Matching

extension APIError.Kind {
    /// Lets a `catch` clause match a kind directly: `catch APIError.Kind.timeout { … }`.
    public static func ~= (kind: APIError.Kind, error: any Error) -> Bool {
        (error as? APIError)?.kind == kind
    }
}

extension APIError: Equatable {
    /// Equal when kind, status code, request summary and message are equal, and the underlying
    /// errors have the same type and description (or both are absent).
    public static func == (lhs: APIError, rhs: APIError) -> Bool {
        guard lhs.kind == rhs.kind, lhs.statusCode == rhs.statusCode, lhs.request == rhs.request,
              lhs.message == rhs.message else { return false }
        switch (lhs.underlyingError, rhs.underlyingError) {
        case (nil, nil): return true
        case (let l?, let r?): return ObjectIdentifier(type(of: l)) == ObjectIdentifier(type(of: r)) && String(describing: l) == String(describing: r)
        default: return false
        }
    }
}

/// ``APIError`` under a name an app's own error type cannot hide.
///
/// Code ported from an app that had its own `enum APIError` (a layered client, seed-style) may
/// keep that enum for a while; in that module `APIError` then means the app's, and
/// `catch let error as APIError` silently matches nothing Courier throws. `CourierAPIError`
/// always means Courier's (as does `Courier.APIError`): the porting articles spell it so.
public typealias CourierAPIError = APIError
