import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A transport that answers every request at once with `200` and the users JSON: no network,
/// no event loop, so what is left to measure is Courier's own work.
struct FixedTransport: Transport {
    /// The response head sent back.
    let head: HTTPResponse

    /// The entity tag of every answer, when the transport revalidates (`nil`: no `ETag`).
    let entityTag: String?

    /// A transport whose answers carry `Cache-Control: cacheControl` when it is given, and
    /// `ETag: entityTag`; a request whose `If-None-Match` names that tag gets a `304`.
    init(cacheControl: String? = nil, entityTag: String? = nil) {
        var head = HTTPResponse(status: .ok)
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.contentLength] = String(Fixtures.usersJSON.count)
        if let cacheControl { head.headerFields[.cacheControl] = cacheControl }
        if let entityTag { head.headerFields[.eTag] = entityTag }
        self.head = head
        self.entityTag = entityTag
    }

    /// The body's bytes.
    let bytes = [UInt8](Fixtures.usersJSON)

    /// Answers at once with ``head`` and ``bytes``, whatever the request.
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        if let entityTag, request.headerFields[.ifNoneMatch] == entityTag {
            var notModified = head
            notModified.status = .notModified
            notModified.headerFields[.contentLength] = nil
            notModified.headerFields[.contentType] = nil
            return (notModified, nil)
        }
        // As AsyncHTTPClientTransport and URLSessionTransport do with a body they hold whole:
        // the bytes in a `Data` of this response's own (a transport reads them into a new
        // buffer; the copy is the stub's cost, as reading them is the transport's).
        let data = Data(bytes)
        let body = HTTPBody.holding(data)
        context.bodyChannels.wholeResponse?.leave(data, for: body)
        return (head, body)
    }
}
