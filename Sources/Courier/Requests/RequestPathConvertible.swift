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

@available(*, deprecated, message: "a String path is sent as written, interpolated values included; declare `var path: RequestPath` so that each interpolated value is encoded as one segment")
extension String: RequestPathConvertible {
    /// The string taken as written.
    public var requestPath: RequestPath { RequestPath(verbatim: self) }
}
