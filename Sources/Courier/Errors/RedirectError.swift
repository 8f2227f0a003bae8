import Foundation

/// Why Courier stopped following a redirect.
public struct RedirectError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var reason: String
    /// The `Location` that was refused, if any (credentials removed).
    public var location: String?

    /// One line; the `Location` is the server's text, so control characters in it are escaped.
    public var description: String {
        location.map { "redirect to '\(LogSafeText.escape($0))' refused: \(reason)" } ?? "redirect refused: \(reason)"
    }
}
