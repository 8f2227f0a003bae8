/// Why a path could not be built.
public struct PathEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var reason: String
    public var description: String { reason }
}
