import Courier
import HTTPTypes

/// The request headers Courier adds by default, read from a client's prepared request, for raw
/// scenarios that should put the same bytes on the wire (`--same-headers`).
enum CourierHeaders {
    /// The header fields of `GET /users` as `client` would send it, before middleware.
    static func defaults(of client: APIClient) -> HTTPFields {
        (try? client.prepare(ListUsers()).0.headerFields) ?? [:]
    }
}
