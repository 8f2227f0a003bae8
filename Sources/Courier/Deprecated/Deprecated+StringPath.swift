@available(*, deprecated, message: "a String path is sent as written, interpolated values included; declare `var path: RequestPath` so that each interpolated value is encoded as one segment")
extension String: RequestPathConvertible {
    /// The string taken as written.
    public var requestPath: RequestPath { RequestPath(verbatim: self) }
}
