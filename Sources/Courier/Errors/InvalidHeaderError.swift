/// Why a header was refused.
public struct InvalidHeaderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The header name, as given (names are never secret; values are never included).
    public var name: String
    /// What is wrong.
    public var reason: String

    public var description: String { "header '\(name)' refused: \(reason)" }
}
