import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Before-send and on-response closures, for all requests or for the paths that match a
/// pattern, as Snowdrop's `addBeforeSendingBlock` and `addOnResponseBlock`.
///
/// ```swift
/// var interceptors = InterceptorMiddleware()
/// interceptors.beforeSend { request, context in
///     var request = request
///     request.headerFields[HTTPField.Name("X-Device")!] = "sim-1"
///     return request
/// }
/// interceptors.beforeSend(for: "/users/{id}/content") { request, _ in request }      // path pattern
/// try interceptors.onResponse(for: .regex(matchingWholePath: "my/path/[0-9]{1,}/content")) { response, body, _ in
///     (response, body)
/// }
/// let client = APIClient(configuration: configuration, transport: transport, middleware: [interceptors])
/// ```
///
/// Path patterns and ``PathMatcher/regex(matchingWholePath:)`` match the request's whole
/// *path* (never the query or the host), either as sent (`/v1/users/7`) or relative to the base
/// URL's path (`/users/7`); ``PathMatcher/regex(matchingAnywhereInURL:)`` searches the full URL,
/// as Snowdrop does.
///
/// Which closures run is the ``Selection``: by default (``Selection/mostSpecific``), for each
/// request and each kind of closure only one runs — the most specific matching path closure if
/// there is one (the pattern with the most literal segments, then the longest; the latest added
/// on a tie), the closure for all requests otherwise. ``Selection/everyMatch`` is Snowdrop's
/// rule: every matching path closure runs, in the order added, and the closures for all
/// requests only when none matched — use it when porting Snowdrop interceptors, whose
/// overlapping blocks all ran.
public struct InterceptorMiddleware: Middleware {
    /// Which of the closures that match a request run.
    public struct Selection: Sendable, Hashable {
        fileprivate enum Kind: Hashable { case mostSpecific, everyMatch }
        fileprivate let kind: Kind
        /// One closure of each kind per request: the most specific matching path closure, else
        /// the (latest) closure for all requests.
        public static let mostSpecific = Selection(kind: .mostSpecific)
        /// Snowdrop's rule: every matching path closure, in the order added (each before-send
        /// closure gets the request the previous one returned, each on-response closure the
        /// response); the closures for all requests, in order, only when no path closure matched.
        public static let everyMatch = Selection(kind: .everyMatch)
    }

    /// Changes a request before it is sent.
    public typealias BeforeSend = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPRequest
    /// Looks at or replaces a response (its body streams: read it only if you replace it).
    public typealias OnResponse = @Sendable (HTTPResponse, HTTPBody?, RequestContext) async throws -> (HTTPResponse, HTTPBody?)

    /// Which requests a closure applies to. Three kinds, named so the difference is plain:
    ///
    /// | Matcher | Matches | Example |
    /// | --- | --- | --- |
    /// | a ``PathPattern`` (a string literal) | the whole path, segment by segment | `"/users/{id}/content"` |
    /// | a string literal in regular-expression syntax | the whole path, as ``regex(matchingWholePath:)`` | `"my/path/[0-9]{1,}/content"` |
    /// | ``regex(matchingWholePath:)`` | the whole path (anchored at both ends) | `.regex(matchingWholePath: "users/[0-9]+/content")` |
    /// | ``regex(matchingAnywhereInURL:)`` | any part of the full URL, query included — as Snowdrop's interceptors do | `.regex(matchingAnywhereInURL: "content")` |
    ///
    /// Path matchers see the path as sent (`/v1/users/7`) and relative to the base URL's path
    /// (`/users/7`).
    ///
    /// A string that holds characters a path never holds unencoded — `[`, `]`, `^`, `|`, `\`,
    /// or braces other than a whole `{name}` segment — cannot be meant as a path pattern: it is
    /// a regular expression over the whole path, as Snowdrop's documentation writes its
    /// patterns (`"my/path/[0-9]{1,}/content"`). When it does not compile, every request
    /// through the middleware fails with an ``InvalidPattern`` naming it, rather than the
    /// closure never running.
    public struct PathMatcher: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        private enum Kind: Sendable {
            case pattern(PathPattern)
            case wholePath(NSRegularExpression)
            case anywhereInURL(NSRegularExpression)
            /// A string in regular-expression syntax that does not compile.
            case invalid(InvalidPattern)
        }
        private let kind: Kind
        /// The pattern as written.
        public let description: String
        /// Literal segments, then length: how specific the matcher is.
        let specificity: (Int, Int)

        /// A path pattern (see ``PathPattern``), or a regular expression over the whole path
        /// when `pattern` is written in that syntax (see above).
        public init(_ pattern: String) {
            if Self.isRegularExpressionSyntax(pattern) {
                do {
                    self = try .regex(matchingWholePath: pattern)
                } catch {
                    kind = .invalid(InvalidPattern(pattern: pattern, reason: "\(error)"))
                    description = pattern
                    specificity = (Int.min, 0)
                }
                return
            }
            let pattern = PathPattern(pattern)
            kind = .pattern(pattern)
            description = pattern.description
            specificity = pattern.specificity
        }

        /// Whether `pattern` holds, outside a whole `{name}` segment (a placeholder, whatever it
        /// holds), a character no path holds unencoded (`[`, `]`, `^`, `|`, `\`) or a
        /// quantifier (`{2}`, `{1,}`, `{1,3}`).
        package static func isRegularExpressionSyntax(_ pattern: String) -> Bool {
            pattern.split(separator: "/").contains { segment in
                if segment.first == "{", segment.last == "}", segment.count > 1 { return false }
                if segment.utf8.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") || $0 == UInt8(ascii: "^")
                                                  || $0 == UInt8(ascii: "|") || $0 == UInt8(ascii: "\\") }) {
                    return true
                }
                return segment.contains(/\{[0-9]+(,[0-9]*)?\}/)
            }
        }

        /// Whether the matcher is a string in regular-expression syntax that does not compile.
        var invalidPattern: InvalidPattern? {
            if case .invalid(let invalid) = kind { return invalid }
            return nil
        }

        /// A path pattern written as a string literal, as ``init(_:)``.
        public init(stringLiteral value: String) { self.init(value) }

        /// A regular expression that must match the **whole path** (a leading `/` is optional,
        /// `^` and `$` are implied). Throws when the expression does not compile.
        public static func regex(matchingWholePath pattern: String) throws -> PathMatcher {
            var body = Substring(pattern)
            if body.hasPrefix("^") { body = body.dropFirst() }
            if body.hasPrefix("/") { body = body.dropFirst() }
            if body.hasSuffix("$") { body = body.dropLast() }
            let literal = body.split(separator: "/").filter { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } }
            return PathMatcher(kind: .wholePath(try NSRegularExpression(pattern: "^/?(?:" + body + ")$")),
                               description: pattern, specificity: (literal.count, pattern.count))
        }

        /// A regular expression searched **anywhere in the full URL** (scheme, host, path and
        /// query), as Snowdrop matches its interceptor patterns: `"content"` matches
        /// `https://api.example.com/v1/content?x=1` and also `/contents` and `?q=content`.
        /// Less specific than any path matcher. Throws when the expression does not compile.
        public static func regex(matchingAnywhereInURL pattern: String) throws -> PathMatcher {
            PathMatcher(kind: .anywhereInURL(try NSRegularExpression(pattern: pattern)), description: pattern, specificity: (-1, pattern.count))
        }

        private init(kind: Kind, description: String, specificity: (Int, Int)) {
            self.kind = kind
            self.description = description
            self.specificity = specificity
        }

        /// Whether a path (without a query) matches. A matcher built with
        /// ``regex(matchingAnywhereInURL:)`` is searched in `path` as given.
        public func matches(_ path: String) -> Bool {
            switch kind {
            case .pattern(let pattern): return pattern.matches(path)
            case .wholePath(let expression), .anywhereInURL(let expression): return Self.search(expression, in: path)
            case .invalid: return false
            }
        }

        /// Whether the request matches: path matchers look at `paths`, URL matchers at `url`.
        func matches(paths: [String], url: String) -> Bool {
            switch kind {
            case .anywhereInURL(let expression): return Self.search(expression, in: url)
            default: return paths.contains(where: matches)
            }
        }

        private static func search(_ expression: NSRegularExpression, in text: String) -> Bool {
            expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
    }

    /// A matcher written in regular-expression syntax that does not compile: every request
    /// through the middleware fails with it (as the underlying error of an ``APIError``), so
    /// the mistake shows at the first request instead of the closure silently never running.
    public struct InvalidPattern: Error, Sendable, CustomStringConvertible {
        /// The matcher as written.
        public let pattern: String
        /// Why it does not compile.
        public let reason: String

        /// The pattern and why it cannot be used.
        public var description: String {
            "the interceptor pattern '\(pattern)' is written as a regular expression but does not compile (\(reason)); fix it, or use a path pattern such as \"/users/{id}\""
        }
    }

    private struct Entry<Closure: Sendable>: Sendable {
        var matcher: PathMatcher?
        var closure: Closure
    }

    private var beforeSends: [Entry<BeforeSend>] = []
    private var onResponses: [Entry<OnResponse>] = []
    /// The first matcher added that does not compile (``InvalidPattern``).
    private var invalidPattern: InvalidPattern?

    /// Which matching closures run.
    public let selection: Selection

    /// Creates a middleware with no closures; add them with ``beforeSend(for:_:)`` and ``onResponse(for:_:)``.
    /// - Parameter selection: which matching closures run: ``Selection/mostSpecific`` (the
    ///   default) or Snowdrop's ``Selection/everyMatch``.
    public init(selection: Selection = .mostSpecific) {
        self.selection = selection
    }

    /// Runs `closure` on requests whose path matches `matcher` (all requests when `nil`) before they are sent.
    public mutating func beforeSend(for matcher: PathMatcher? = nil, _ closure: @escaping BeforeSend) {
        if invalidPattern == nil { invalidPattern = matcher?.invalidPattern }
        beforeSends.append(Entry(matcher: matcher, closure: closure))
    }

    /// Runs `closure` on responses to requests whose path matches `matcher` (all when `nil`).
    public mutating func onResponse(for matcher: PathMatcher? = nil, _ closure: @escaping OnResponse) {
        if invalidPattern == nil { invalidPattern = matcher?.invalidPattern }
        onResponses.append(Entry(matcher: matcher, closure: closure))
    }

    /// Runs `closure` on the collected response body (up to the request's size limit) and sends
    /// on what it returns, as Snowdrop's `addOnResponseBlock { data, response in … }`. A body over
    /// the limit fails the request with ``APIError/Kind/resourceTooLarge`` before `closure` runs.
    ///
    /// Only responses the client reads whole (`send`, `response(for:)`, `data(for:)`) go through
    /// `closure`. Streamed ones — `bytes(for:)`, `events(for:)`, downloads — pass untouched:
    /// collecting them would hold an endless event stream for ever and a large download in
    /// memory. Use ``onResponse(for:_:)`` to see their heads. The closure gets empty data for a
    /// response without a body (`HEAD`, `204`); when it returns empty data, the head is left as
    /// it is (a `HEAD`'s `Content-Length` stays); otherwise `Content-Length` is set to what it
    /// returns.
    public mutating func onResponseData(
        for matcher: PathMatcher? = nil,
        _ closure: @escaping @Sendable (Data, HTTPResponse, RequestContext) async throws -> Data
    ) {
        onResponse(for: matcher) { response, body, context in
            guard context.collectsResponseBody else { return (response, body) }
            // Past the limit, the client reports `resourceTooLarge` for this request.
            let data = try await BodyReading.collect(body, head: response, limit: context.maxResponseSize)
            let replaced = try await closure(data, response, context)
            // A response without a body (HEAD, 204, 304 — nil or empty, as the transport gives
            // it) keeps its head as it is: a HEAD's Content-Length is the size asked about.
            if data.isEmpty, replaced.isEmpty { return (response, body == nil ? nil : HTTPBody()) }
            var response = response
            response.headerFields.replace(.contentLength, with: String(replaced.count))
            return (response, HTTPBody(replaced))
        }
    }

    /// Runs the selected before-send closure, sends the request on, then runs the selected on-response closure.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        if let invalidPattern { throw invalidPattern }
        let paths = Self.candidatePaths(request, baseURL: context.baseURL)
        let url = request.urlString
        var request = request
        for before in select(beforeSends, paths: paths, url: url) {
            request = try await before(request, context)
        }
        var (response, responseBody) = try await next(request, body, context)
        for after in select(onResponses, paths: paths, url: url) {
            (response, responseBody) = try await after(response, responseBody, context)
        }
        return (response, responseBody)
    }

    private static func candidatePaths(_ request: HTTPRequest, baseURL: URL) -> [String] {
        let path = RequestTarget.path(of: request)
        var base = Substring(baseURL.path)
        while base.hasSuffix("/") { base = base.dropLast() }
        guard !base.isEmpty, path.hasPrefix(base) else { return [path] }
        let rest = path.dropFirst(base.count)
        return rest.isEmpty ? [path, "/"] : (rest.hasPrefix("/") ? [path, String(rest)] : [path])
    }

    /// The closures of `entries` that run for this request, in the order they run.
    private func select<Closure>(_ entries: [Entry<Closure>], paths: [String], url: String) -> [Closure] {
        guard !entries.isEmpty else { return [] }
        if selection == .everyMatch {
            let matching = entries.filter { $0.matcher?.matches(paths: paths, url: url) == true }
            return (matching.isEmpty ? entries.filter { $0.matcher == nil } : matching).map(\.closure)
        }
        var best: Entry<Closure>?
        for entry in entries {
            guard let matcher = entry.matcher, matcher.matches(paths: paths, url: url) else { continue }
            if let current = best?.matcher, current.specificity > matcher.specificity { continue }
            best = entry
        }
        guard let chosen = best?.closure ?? entries.last(where: { $0.matcher == nil })?.closure else { return [] }
        return [chosen]
    }
}
