import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Before-send and on-response closures, for all requests or for the paths that match a
/// pattern, as seed 004's `addBeforeSendingBlock` and `addOnResponseBlock`.
///
/// ```swift
/// var interceptors = InterceptorMiddleware()
/// interceptors.beforeSend { request, context in
///     var request = request
///     request.headerFields[HTTPField.Name("X-Device")!] = "sim-1"
///     return request
/// }
/// interceptors.beforeSend(for: "/users/{id}/content") { request, _ in request }      // path pattern
/// try interceptors.onResponse(for: .regex("my/path/[0-9]{1,}/content")) { response, body, _ in
///     (response, body)
/// }
/// let client = APIClient(configuration: configuration, transport: transport, middleware: [interceptors])
/// ```
///
/// Patterns match the request's *path* (never the query, the host or the raw URL), either as
/// sent (`/v1/users/7`) or relative to the base URL's path (`/users/7`). For each request and
/// each kind of closure, only one runs: the most specific matching path closure if there is
/// one (the pattern with the most literal segments, then the longest; the latest added on a
/// tie), the closure for all requests otherwise — as in the seed, a specific block replaces
/// the general one.
public struct InterceptorMiddleware: Middleware {
    /// Changes a request before it is sent.
    public typealias BeforeSend = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPRequest
    /// Looks at or replaces a response (its body streams: read it only if you replace it).
    public typealias OnResponse = @Sendable (HTTPResponse, HTTPBody?, RequestContext) async throws -> (HTTPResponse, HTTPBody?)

    /// Which request paths a closure applies to.
    public struct PathMatcher: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        private enum Kind: Sendable {
            case segments([Substring])
            case regex(NSRegularExpression)
        }
        private let kind: Kind
        /// The pattern as written.
        public let description: String
        /// Literal segments, then length: how specific the pattern is.
        let specificity: (Int, Int)

        /// A path pattern: literal segments, `{name}` or `*` for one segment, `**` (last) for any rest.
        public init(_ pattern: String) {
            let segments = pattern.split(separator: "/", omittingEmptySubsequences: true)
            kind = .segments(segments)
            description = pattern
            specificity = (segments.filter { $0 != "*" && $0 != "**" && !($0.hasPrefix("{") && $0.hasSuffix("}")) }.count, pattern.count)
        }

        /// A path pattern written as a string literal, as ``init(_:)``.
        public init(stringLiteral value: String) { self.init(value) }

        /// A regular expression that must match the whole path (a leading `/` is optional).
        public static func regex(_ pattern: String) throws -> PathMatcher {
            try PathMatcher(regex: pattern)
        }

        private init(regex pattern: String) throws {
            var body = Substring(pattern)
            if body.hasPrefix("^") { body = body.dropFirst() }
            if body.hasPrefix("/") { body = body.dropFirst() }
            if body.hasSuffix("$") { body = body.dropLast() }
            kind = .regex(try NSRegularExpression(pattern: "^/?(?:" + body + ")$"))
            description = pattern
            let literal = body.split(separator: "/").filter { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } }
            specificity = (literal.count, pattern.count)
        }

        /// Whether `path` (without a query) matches.
        public func matches(_ path: String) -> Bool {
            switch kind {
            case .regex(let expression):
                return expression.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
            case .segments(let segments):
                let parts = path.split(separator: "/", omittingEmptySubsequences: true)
                for (index, segment) in segments.enumerated() {
                    if segment == "**" { return index == segments.count - 1 }
                    guard index < parts.count else { return false }
                    let wildcard = segment == "*" || (segment.hasPrefix("{") && segment.hasSuffix("}"))
                    if !wildcard && segment != parts[index] { return false }
                }
                return segments.count == parts.count
            }
        }
    }

    private struct Entry<Closure: Sendable>: Sendable {
        var matcher: PathMatcher?
        var closure: Closure
    }

    private var beforeSends: [Entry<BeforeSend>] = []
    private var onResponses: [Entry<OnResponse>] = []

    /// Creates a middleware with no closures; add them with ``beforeSend(for:_:)`` and ``onResponse(for:_:)``.
    public init() {}

    /// Runs `closure` on requests whose path matches `matcher` (all requests when `nil`) before they are sent.
    public mutating func beforeSend(for matcher: PathMatcher? = nil, _ closure: @escaping BeforeSend) {
        beforeSends.append(Entry(matcher: matcher, closure: closure))
    }

    /// Runs `closure` on responses to requests whose path matches `matcher` (all when `nil`).
    public mutating func onResponse(for matcher: PathMatcher? = nil, _ closure: @escaping OnResponse) {
        onResponses.append(Entry(matcher: matcher, closure: closure))
    }

    /// Runs `closure` on the collected response body (up to the request's size limit) and sends
    /// on what it returns, as the seed's `addOnResponseBlock { data, response in … }`.
    public mutating func onResponseData(
        for matcher: PathMatcher? = nil,
        _ closure: @escaping @Sendable (Data, HTTPResponse, RequestContext) async throws -> Data
    ) {
        onResponse(for: matcher) { response, body, context in
            var data = Data()
            if let body { data = try await Data(collecting: body, upTo: context.maxResponseSize) }
            let replaced = try await closure(data, response, context)
            var response = response
            response.headerFields[.contentLength] = String(replaced.count)
            return (response, HTTPBody(replaced))
        }
    }

    /// Runs the selected before-send closure, sends the request on, then runs the selected on-response closure.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let paths = Self.candidatePaths(request, baseURL: context.baseURL)
        var request = request
        if let before = Self.select(beforeSends, paths: paths) {
            request = try await before(request, context)
        }
        let (response, responseBody) = try await next(request, body, context)
        guard let after = Self.select(onResponses, paths: paths) else { return (response, responseBody) }
        return try await after(response, responseBody, context)
    }

    private static func candidatePaths(_ request: HTTPRequest, baseURL: URL) -> [String] {
        let path = MiddlewareSupport.path(of: request)
        var base = Substring(baseURL.path)
        while base.hasSuffix("/") { base = base.dropLast() }
        guard !base.isEmpty, path.hasPrefix(base) else { return [path] }
        let rest = path.dropFirst(base.count)
        return rest.isEmpty ? [path, "/"] : (rest.hasPrefix("/") ? [path, String(rest)] : [path])
    }

    private static func select<Closure>(_ entries: [Entry<Closure>], paths: [String]) -> Closure? {
        var best: Entry<Closure>?
        for entry in entries {
            guard let matcher = entry.matcher, paths.contains(where: matcher.matches) else { continue }
            if let current = best?.matcher, current.specificity > matcher.specificity { continue }
            best = entry
        }
        return best?.closure ?? entries.last { $0.matcher == nil }?.closure
    }
}
