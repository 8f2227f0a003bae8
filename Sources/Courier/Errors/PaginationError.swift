/// Why Courier stopped paging: the server led back to a page already fetched (a cycle), or
/// offered more pages than the limit (``PageSequence/defaultPageLimit``, or the one set with
/// ``PageSequence/limited(toPages:)``).
///
/// It arrives as the underlying error of an ``APIError`` of kind ``APIError/Kind/network``.
public struct PaginationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var reason: String
    /// The URL of the page that was not fetched (secrets redacted), when there is one.
    public var url: String?

    /// One line: the reason and the URL.
    public var description: String {
        url.map { "pagination stopped at \($0): \(reason)" } ?? "pagination stopped: \(reason)"
    }
}
