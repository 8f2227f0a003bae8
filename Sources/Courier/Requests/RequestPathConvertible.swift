/// A type that can be an ``APIRequest``'s path: ``RequestPath`` (the default, which encodes
/// interpolated values) or, for source compatibility, `String`.
public protocol RequestPathConvertible: Sendable {
    /// The path as Courier resolves it.
    var requestPath: RequestPath { get }
}

extension RequestPath: RequestPathConvertible {
    /// The path itself.
    public var requestPath: RequestPath { self }
}

