/// Why a ``MultipartForm`` could not be sent: a boundary given to
/// ``MultipartForm/init(boundary:)`` that RFC 2046 does not allow, or that appears in one of the
/// form's parts (which would end the part early); or a `Content-Type` of the request's own that
/// cannot describe the form (not a multipart type, or another boundary).
public struct MultipartFormError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var reason: String
    /// The reason.
    public var description: String { reason }
}
