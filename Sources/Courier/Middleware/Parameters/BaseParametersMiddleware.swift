import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Adds common parameters (app version, OS, device, language, channel… what app APIs often
/// collect in a `BaseRequest`) to every request whose options keep ``RequestOptions/includeBaseParameters``.
///
/// ```swift
/// let base = BaseParametersMiddleware(placement: .query) {
///     [URLQueryItem(name: "os", value: "iOS"),
///      URLQueryItem(name: "appVersion", value: Bundle.main.shortVersion),
///      URLQueryItem(name: "deviceId", value: await Device.id())]
/// }
/// ```
///
/// Fixed parameters can also go in ``APIConfiguration/baseParameters``; this middleware is for
/// values computed per request (network type, current language) or for putting them in the
/// body or headers. With ``Placement/body``, parameters are merged into a form
/// (`application/x-www-form-urlencoded`) or JSON object body that is already in memory; any
/// other request (a `GET`, a multipart or streamed body) gets them in the query instead, so a
/// single-pass body is never read. A parameter the request already has is not overwritten.
///
/// A signed-in user's fields (`pub_uid`, `pub_ticket` as headers) are credentials, not device
/// fields: give them ``Scope/credentials``, and a request that opts out of the base parameters
/// still carries them, while one with `authentication: .none` does not.
///
/// ```swift
/// BaseParametersMiddleware(placement: .headers, for: .credentials) { await session.headers() }
/// ```
///
/// Credentials are secrets wherever they go. As headers, their names are redacted in logs; in
/// the query or the body, their names join the request's secret query names
/// (``RequestContext/sensitiveQueryNames``) from this middleware down — a cache key holds their
/// values as digests, logs, errors and cassettes show `<redacted>`. The names of fixed
/// parameters (``init(_:placement:for:)``) are added to the client's
/// ``APIConfiguration/sensitiveQueryNames`` too, so a server that echoes them into a next-page
/// link cannot put them into an error's URL above the middleware; for parameters computed per
/// request, add their names there yourself. A ``CachingMiddleware`` or ``CoalescingMiddleware``
/// above a credentials layer, in any placement, is refused (``MiddlewareOrderError``).
///
/// Parameters go only to the base URL's origin (unless the request opted in with
/// ``RequestOptions/sendsCredentialsToOtherOrigins``); headers added here are removed when a
/// redirect leaves that origin, and ``Scope/credentials`` headers are redacted in logs too. As
/// headers, an item whose value is `nil` is left out, as it is in the query.
public struct BaseParametersMiddleware: Middleware, RoleDeclaringMiddleware {
    /// Where the parameters go.
    public struct Placement: Sendable, Hashable {
        fileprivate enum Kind: Hashable { case query, body, headers }
        fileprivate let kind: Kind
        /// In the URL's query.
        public static let query = Placement(kind: .query)
        /// In a form or JSON body when the request has one, in the query otherwise.
        public static let body = Placement(kind: .body)
        /// As request headers (names must be valid header names).
        public static let headers = Placement(kind: .headers)
    }

    /// Which requests get the parameters.
    public struct Scope: Sendable, Hashable {
        fileprivate enum Kind: Hashable { case baseParameters, credentials }
        fileprivate let kind: Kind
        /// Requests that keep ``RequestOptions/includeBaseParameters`` (the default): the app's
        /// and device's fields.
        public static let baseParameters = Scope(kind: .baseParameters)
        /// Requests that keep ``RequestOptions/authentication``: a signed-in user's fields. They
        /// are sent with or without the base parameters, count as credentials
        /// (``RequestContext/carriesCredentials``) and, as headers, are redacted in logs.
        public static let credentials = Scope(kind: .credentials)
    }

    /// Where the parameters go.
    public let placement: Placement
    /// Which requests get them.
    public let scope: Scope
    /// What the client must know of it: whether it adds a signed-in user's fields
    /// (``Scope/credentials``), in any placement — a cache or coalescer above it would not see
    /// them; and the names of fixed credentials it puts in the query or the body, which the
    /// client adds to its ``APIConfiguration/sensitiveQueryNames`` (none for parameters computed
    /// per request, whose names are known only when they are, nor for headers).
    package var role: MiddlewareRole {
        MiddlewareRole(secretQueryNames: Set(secretQueryNames), addsUserCredentials: scope == .credentials)
    }
    private let secretQueryNames: [String]
    private let parameters: @Sendable () async throws -> [URLQueryItem]

    /// Creates the middleware with parameters computed for each request.
    public init(placement: Placement = .query, for scope: Scope = .baseParameters,
                parameters: @escaping @Sendable () async throws -> [URLQueryItem]) {
        self.placement = placement
        self.scope = scope
        self.parameters = parameters
        self.secretQueryNames = []
    }

    /// Creates the middleware with fixed parameters.
    public init(_ parameters: [URLQueryItem], placement: Placement = .query, for scope: Scope = .baseParameters) {
        self.placement = placement
        self.scope = scope
        self.parameters = { parameters }
        self.secretQueryNames = scope == .credentials && placement != .headers ? parameters.map(\.name) : []
    }

    /// Adds the parameters (unless the request opted out), then sends the request on.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let wanted = switch scope.kind {
        case .baseParameters: context.options.includeBaseParameters
        case .credentials: context.options.authentication != .none
        }
        // Only to the base URL's origin, unless the request opted in (they often carry tokens).
        guard wanted, context.allowsCredentials else { return try await next(request, body, context) }
        let items = try await parameters()
        guard !items.isEmpty else { return try await next(request, body, context) }
        var request = request
        var context = context
        if scope.kind == .credentials {
            context.carriesCredentials = true
            // Secret from here on, as an API key in the query is: a cache key holds the values
            // as digests, and logs, errors and cassettes below redact them (in a form or JSON
            // body too: the body redaction reads the same names).
            if placement.kind != .headers {
                for item in items { context.sensitiveQueryNames.insert(item.name) }
            }
        }
        switch placement.kind {
        case .headers:
            for item in items {
                guard let value = item.value else { continue }
                let field = try HeaderValidation.field(name: item.name, value: value)
                if request.headerFields[field.name] == nil { request.headerFields[field.name] = field.value }
                // Like the client's default headers, they stay at the origin a redirect leaves.
                context.originOnlyHeaders.insert(field.name)
                if scope.kind == .credentials { context.sensitiveHeaders.insert(field.name) }
            }
            return try await next(request, body, context)
        case .body:
            if let merged = try await Self.merge(items, into: body, request: &request) {
                return try await next(request, merged, context)
            }
            Self.addToQuery(items, request: &request)
            return try await next(request, body, context)
        case .query:
            Self.addToQuery(items, request: &request)
            return try await next(request, body, context)
        }
    }

    private static func addToQuery(_ items: [URLQueryItem], request: inout HTTPRequest) {
        let existing = Set(RequestTarget.queryItems(of: request).map(\.name))
        RequestTarget.appendQuery(items.filter { !existing.contains($0.name) }, to: &request)
    }

    /// The body with the parameters merged in, or `nil` when the body is not a form or JSON
    /// object held in memory.
    private static func merge(_ items: [URLQueryItem], into body: HTTPBody?, request: inout HTTPRequest) async throws -> HTTPBody? {
        guard let body, let contentType = request.headerFields[.contentType].flatMap(MediaType.init) else { return nil }
        let isForm = contentType.essence == "application/x-www-form-urlencoded"
        let isJSON = contentType.isJSON
        guard isForm || isJSON, let data = try await BodyReading.replayableBytes(body, limit: 4 * 1024 * 1024) else { return nil }
        let merged: Data
        if isForm {
            let text = String(decoding: data, as: UTF8.self)
            // `=` alone or `=x` has an empty name: split keeping empty pieces, so [0] always exists.
            let existing = Set(text.split(separator: "&").map { String($0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]) })
            let extra = items.filter { !existing.contains(String(FormEncoding.encode([($0.name, "")]).dropLast())) }
            let encoded = FormEncoding.encode(extra.map { ($0.name, $0.value ?? "") })
            guard !encoded.isEmpty else { return body }
            merged = Data(((text.isEmpty ? "" : text + "&") + encoded).utf8)
        } else {
            guard var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
            for item in items where object[item.name] == nil { object[item.name] = item.value ?? NSNull() }
            merged = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        request.headerFields[.contentLength] = nil
        let replacement = HTTPBody.registered(merged)
        // An upload's progress handler hears of the body that is sent, counted against its length.
        if let progress = body.uploadDescription?.progress {
            return replacement.reportingProgress(to: progress.reporting(total: Int64(merged.count)))
        }
        return replacement
    }
}
