import HTTPTypes

extension HTTPResponse.Status {
    /// The status for `code`, or a ``TransportError`` naming it when it is not a three-digit
    /// HTTP status code (100–999).
    ///
    /// `HTTPResponse.Status(code:)` traps outside 0–999, in release builds too, and HTTP/2's
    /// `:status` — which NIO, AsyncHTTPClient and URLSession hand on as a number — can hold any
    /// value a hostile server puts there: every transport builds a response's status here.
    package static func checked(code: Int, reasonPhrase: String = "") throws(TransportError) -> HTTPResponse.Status {
        guard (100...999).contains(code) else { throw unusable(code: code) }
        return HTTPResponse.Status(code: code, reasonPhrase: reasonPhrase)
    }

    /// The error for a response whose status `code` is not a three-digit HTTP status code.
    package static func unusable(code: Int) -> TransportError {
        TransportError(.other, "the server answered with status \(code), which is not a three-digit HTTP status code")
    }
}
