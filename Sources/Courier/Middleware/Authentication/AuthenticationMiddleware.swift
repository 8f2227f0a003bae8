import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Adds credentials to every request whose options allow it
/// (``RequestOptions/authentication`` is not ``RequestOptions/Authentication/none``).
///
/// ```swift
/// AuthenticationMiddleware(.bearer("static-token"))
/// AuthenticationMiddleware(.apiKey("k-123", header: "X-Api-Key"))
/// AuthenticationMiddleware(.apiKey("k-123", queryItem: "api_key"))      // a token in the query
/// AuthenticationMiddleware(.basic(username: "ada", password: "secret"))
/// AuthenticationMiddleware(.bearer(SessionTokens(store: store)))       // refreshes on 401
/// ```
///
/// With a ``TokenProvider``, a `401` answer makes the middleware refresh the token through its
/// ``TokenRefresher`` (one refresh for a burst of concurrent `401`s) and retry the request once
/// with the new token; a request sent with an older token than the current one is retried with
/// the current token without a refresh. A failed refresh fails the request with
/// ``AuthenticationError``. A request whose body cannot be sent twice is not retried: its `401`
/// is returned. Nor is a request with `retry: .never`: its `401` is returned, after the token
/// is renewed for the requests that follow. Nor is a `401` from another origin that a redirect led to: the redirect left
/// the token behind, so a new one would not change that origin's answer.
///
/// Header values are checked: a token or key containing CR or LF is refused with
/// ``InvalidHeaderError`` and never sent. An API key header is added to
/// ``RequestContext/sensitiveHeaders`` so it is redacted in logs and does not follow a redirect
/// to another origin.
///
/// Credentials are added only to requests for the base URL's origin
/// (``RequestContext/allowsCredentials``): a request whose path is an absolute URL elsewhere (a
/// pre-signed upload link) goes without them unless it sets
/// ``RequestOptions/sendsCredentialsToOtherOrigins``.
public struct AuthenticationMiddleware: Middleware, RoleDeclaringMiddleware {
    /// How requests are authenticated.
    public struct Credentials: Sendable {
        fileprivate enum Kind: Sendable {
            case header(name: String, value: String)
            case query(name: String, value: String)
            case tokens(TokenRefresher)
            /// Credentials that cannot be sent: each request fails with the error.
            case invalid(InvalidHeaderError)
        }
        fileprivate let kind: Kind

        /// `Authorization: Bearer <token>` with a fixed token.
        public static func bearer(_ token: String) -> Credentials {
            Credentials(kind: .header(name: "Authorization", value: "Bearer " + token))
        }

        /// `Authorization: Bearer <token>` with tokens from `provider`, refreshed on `401`.
        public static func bearer(_ provider: some TokenProvider) -> Credentials {
            Credentials(kind: .tokens(TokenRefresher(provider: provider)))
        }

        /// `Authorization: Bearer <token>` through an existing refresher (to share it between clients).
        public static func bearer(_ refresher: TokenRefresher) -> Credentials {
            Credentials(kind: .tokens(refresher))
        }

        /// An API key in a header, e.g. `X-Api-Key`.
        public static func apiKey(_ key: String, header: String) -> Credentials {
            Credentials(kind: .header(name: header, value: key))
        }

        /// An API key as a query parameter, e.g. `?api_key=…`.
        public static func apiKey(_ key: String, queryItem name: String) -> Credentials {
            Credentials(kind: .query(name: name, value: key))
        }

        /// `Authorization: Basic base64(username:password)`. A username containing `:` cannot be
        /// sent (RFC 7617: the server would read what follows it as the password): each request
        /// then fails with an ``InvalidHeaderError``, and none goes out.
        public static func basic(username: String, password: String) -> Credentials {
            if username.contains(":") {
                return Credentials(kind: .invalid(InvalidHeaderError(
                    name: "Authorization", reason: "a Basic username cannot contain ':' (RFC 7617): the server would read what follows it as the password")))
            }
            let encoded = Data("\(username):\(password)".utf8).base64EncodedString()
            return Credentials(kind: .header(name: "Authorization", value: "Basic " + encoded))
        }

        /// Any header, for schemes of your own (`Authorization: Token …`, `X-Session: …`).
        public static func header(_ name: String, value: String) -> Credentials {
            Credentials(kind: .header(name: name, value: value))
        }
    }

    /// The credentials as each request gets them, resolved once, in `init`: a fixed header is
    /// checked there rather than on every request.
    private enum Resolved: Sendable {
        /// A fixed header, checked.
        case header(HTTPField)
        /// A fixed header that cannot be sent: each request throws this, so none goes out
        /// without it.
        case invalidHeader(InvalidHeaderError)
        /// A query parameter appended to each request.
        case query(name: String, value: String)
        /// Tokens from a provider, refreshed on `401`.
        case tokens(TokenRefresher)
    }

    /// What each request gets.
    private let resolved: Resolved

    /// Creates the middleware.
    public init(_ credentials: Credentials) {
        switch credentials.kind {
        case .header(let name, let value):
            do {
                resolved = .header(try HeaderValidation.field(name: name, value: value))
            } catch {
                resolved = .invalidHeader(error as? InvalidHeaderError ?? InvalidHeaderError(name: name, reason: "\(error)"))
            }
        case .query(let name, let value):
            // Refused as a header's value is: a pasted key with a stray line break would go out
            // percent-encoded and fail at the server with no local error.
            do {
                try HeaderValidation.validate(value: value, name: "\(name) (a query item)")
                resolved = .query(name: name, value: value)
            } catch {
                resolved = .invalidHeader(error as? InvalidHeaderError ?? InvalidHeaderError(name: name, reason: "\(error)"))
            }
        case .tokens(let refresher):
            resolved = .tokens(refresher)
        case .invalid(let error):
            resolved = .invalidHeader(error)
        }
    }

    /// What the client must know of it: the query item's name when the credential is sent in
    /// the query (``Credentials/apiKey(_:queryItem:)``), which the client counts among its
    /// ``APIConfiguration/sensitiveQueryNames``; and whether the credentials come from a
    /// ``TokenProvider`` (a signed-in user's tokens), which differ from user to user — unlike an
    /// app-wide API key or fixed credentials.
    package var role: MiddlewareRole {
        switch resolved {
        case .query(let name, _): return MiddlewareRole(secretQueryNames: [name])
        case .tokens: return MiddlewareRole(addsUserCredentials: true)
        default: return MiddlewareRole()
        }
    }

    /// The refresher, when the credentials come from a ``TokenProvider``.
    public var refresher: TokenRefresher? {
        if case .tokens(let refresher) = resolved { return refresher }
        return nil
    }

    /// Adds the credentials (unless the request opted out) and, with a token provider, retries once after a `401`.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // Credentials go only to the base URL's origin, unless the request opted in: a bearer
        // token must not follow an absolute URL to a pre-signed storage link.
        guard context.options.authentication != .none, context.allowsCredentials else { return try await next(request, body, context) }
        var request = request
        var context = context
        context.carriesCredentials = true
        switch resolved {
        case .invalidHeader(let error):
            throw error
        case .header(let field):
            request.headerFields.replace(with: field)
            if field.name != .authorization { context.sensitiveHeaders.insert(field.name) }
            return try await next(request, body, context)
        case .query(let name, let value):
            // Replaces one the target already has (a next-page link that echoes the query).
            RequestTarget.removeQueryItems(named: name, from: &request)
            RequestTarget.appendQuery([URLQueryItem(name: name, value: value)], to: &request)
            // Secret from here on, as the header form's name is: errors, logs and cassettes
            // below redact it (Google's `key` is no name that looks secret).
            context.sensitiveQueryNames.insert(name)
            return try await next(request, body, context)
        case .tokens(let refresher):
            return try await sendWithTokens(request, body: body, context: context, refresher: refresher, next: next)
        }
    }

    private func sendWithTokens(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, refresher: TokenRefresher, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let lease = try await refresher.token(before: context.deadline)
        // A `401` from another origin a redirect led to is that origin's answer to a request
        // without the token (the follower removed it): refreshing would not help, and would let
        // a hostile redirect target force a refresh per request.
        let redirects = RedirectWatch()
        var context = context
        context.redirectWatches.append(redirects)
        let (response, responseBody) = try await next(try Self.authorize(request, with: lease.token), body, context)
        // After a redirect the first request was handled (a POST answered by a 303): the whole
        // chain is sent again only when its method allows sending it twice.
        if response.status.code == 401, case .never = context.options.retry {
            // `retry: .never` is sent once: the 401 is the caller's answer. The token is still
            // renewed (once for a burst, as always), so the requests that follow carry a valid one.
            if !redirects.leftOrigin { _ = try? await refresher.refresh(after: lease, before: context.deadline) }
            return (response, responseBody)
        }
        guard response.status.code == 401, BodyReading.isReplayable(body), !redirects.leftOrigin,
              redirects.count == 0 || RetryPolicy.default.maySendAgain(
                  request.method, hasIdempotencyKey: request.headerFields[RetryPolicy.idempotencyKey] != nil,
                  body: body, retry: context.options.retry)
        else { return (response, responseBody) }
        await BodyReading.drain(responseBody)
        let renewed = try await refresher.refresh(after: lease, before: context.deadline)
        var retry = context
        retry.attempt += 1
        context.logger.debug("retrying with a renewed token after HTTP 401", metadata: ["courier.operation": "\(context.operationName)"])
        return try await next(try Self.authorize(request, with: renewed.token), body, retry)
    }

    private static func authorize(_ request: HTTPRequest, with token: AccessToken) throws -> HTTPRequest {
        var request = request
        let field = try HeaderValidation.field(name: "Authorization", value: "Bearer " + token.value)
        request.headerFields[.authorization] = field.value
        return request
    }
}
