import HTTPTypes
import OpenAPIRuntime

enum ResponseLength {
    /// The body's length when the transport or the `Content-Length` header says (a compressed
    /// body's header counts compressed bytes, so it is not trusted then).
    static func expected(_ body: HTTPBody?, head: HTTPResponse) -> Int64? {
        if let body, case .known(let length) = body.length { return length }
        if head.headerFields[.contentEncoding] == nil, let header = head.headerFields[.contentLength], let length = Int64(header) {
            return length
        }
        return body == nil ? 0 : nil
    }
}
