/// A path pattern for stubs: literal segments, `{name}` or `*` for any one segment, and `**`
/// for any number of trailing segments.
///
/// `/users/{id}` matches `/users/7`; `/files/**` matches `/files/a/b.txt`. The query is ignored.
public struct PathPattern: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    private let segments: [Substring]
    /// The pattern as written.
    public let description: String

    /// Creates a pattern.
    public init(_ pattern: String) {
        self.description = pattern
        self.segments = pattern.split(separator: "/", omittingEmptySubsequences: true)
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// Whether `path` (a request path, with or without a query) matches.
    public func matches(_ path: String) -> Bool {
        let pathOnly = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = pathOnly.split(separator: "/", omittingEmptySubsequences: true)
        var index = 0
        for (position, segment) in segments.enumerated() {
            if segment == "**" { return position == segments.count - 1 || index <= parts.count }
            guard index < parts.count else { return false }
            let isWildcard = segment == "*" || (segment.first == "{" && segment.last == "}")
            if !isWildcard && segment != parts[index] { return false }
            index += 1
        }
        return index == parts.count
    }
}
