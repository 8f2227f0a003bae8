/// A pattern over a request's path, segment by segment — the one pattern syntax Courier uses,
/// for stubs (`StubTransport.on(_:_:_:)`) and for ``InterceptorMiddleware``.
///
/// - a literal segment matches itself: `users`;
/// - `{name}` or `*` matches any one segment;
/// - `**` matches any number of segments, none included, wherever it stands.
///
/// `/users/{id}` matches `/users/7`; `/files/**` matches `/files`, `/files/a` and
/// `/files/a/b.txt`; `/**/avatar` matches `/users/7/avatar`. The query is ignored, and so are
/// empty segments (`//`).
public struct PathPattern: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    private let segments: [Substring]
    /// The pattern as written.
    public let description: String

    /// Creates a pattern.
    public init(_ pattern: String) {
        self.description = pattern
        self.segments = pattern.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// A pattern written as a string literal, as ``init(_:)``.
    public init(stringLiteral value: String) { self.init(value) }

    /// How specific the pattern is: its literal segments, then its length. A more specific
    /// pattern wins when several match (``InterceptorMiddleware``).
    public var specificity: (literalSegments: Int, length: Int) {
        (segments.filter { !Self.isWildcard($0) && $0 != "**" }.count, description.count)
    }

    /// Whether `path` (a request path, with or without a query) matches.
    public func matches(_ path: String) -> Bool {
        let pathOnly = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = pathOnly.split(separator: "/", omittingEmptySubsequences: true)
        return Self.match(segments[...], parts[...])
    }

    /// Segment matching with `**` backtracking. Patterns are short, so the recursion is shallow;
    /// consecutive `**` are treated as one.
    private static func match(_ pattern: ArraySlice<Substring>, _ parts: ArraySlice<Substring>) -> Bool {
        guard let first = pattern.first else { return parts.isEmpty }
        if first == "**" {
            let rest = pattern.dropFirst().drop { $0 == "**" }
            if rest.isEmpty { return true }
            var candidate = parts
            while true {
                if match(rest, candidate) { return true }
                guard !candidate.isEmpty else { return false }
                candidate = candidate.dropFirst()
            }
        }
        guard let part = parts.first else { return false }
        guard isWildcard(first) || first == part else { return false }
        return match(pattern.dropFirst(), parts.dropFirst())
    }

    private static func isWildcard(_ segment: Substring) -> Bool {
        segment == "*" || (segment.first == "{" && segment.last == "}")
    }
}
