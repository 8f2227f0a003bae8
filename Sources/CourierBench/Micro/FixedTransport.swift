import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A transport that answers every request at once with `200` and the users JSON: no network,
/// no event loop, so what is left to measure is Courier's own work.
struct FixedTransport: Transport {
    /// The response head sent back.
    let head: HTTPResponse

    /// A transport whose answers carry `Cache-Control: cacheControl` when it is given.
    init(cacheControl: String? = nil) {
        var head = HTTPResponse(status: .ok)
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.contentLength] = String(Fixtures.usersJSON.count)
        if let cacheControl { head.headerFields[.cacheControl] = cacheControl }
        self.head = head
    }

    /// The body's bytes.
    let bytes = ArraySlice(Fixtures.usersJSON)

    /// Answers at once with ``head`` and ``bytes``, whatever the request.
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        (head, HTTPBody(bytes))
    }
}
