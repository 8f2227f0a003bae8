import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A transport that answers every request at once with `200` and the users JSON: no network,
/// no event loop, so what is left to measure is Courier's own work.
struct FixedTransport: Transport {
    /// The response head sent back.
    let head: HTTPResponse = {
        var head = HTTPResponse(status: .ok)
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.contentLength] = String(Fixtures.usersJSON.count)
        return head
    }()
    /// The body's bytes.
    let bytes = ArraySlice(Fixtures.usersJSON)

    /// Answers at once with ``head`` and ``bytes``, whatever the request.
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        (head, HTTPBody(bytes))
    }
}
