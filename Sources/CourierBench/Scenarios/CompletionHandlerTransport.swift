import Courier
import CourierURLSession
import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An experiment, not a transport to ship: `URLSession.data(for:)` on a session without a
/// delegate, behind Courier's `Transport` protocol — the alternative the URLSession issue asks
/// to measure against ``URLSessionTransport``'s delegate path.
///
/// It puts the same request on the wire as `URLSessionTransport` (same configuration, same
/// header fields, same session timeout: ``URLSessionTransport/urlRequest(for:context:)``) and
/// converts the head the same way, but it gives up what the delegate is there for: the body is
/// buffered whole by FoundationNetworking before Courier sees a byte, so `maxResponseSize`
/// cannot cut a hostile body while it arrives (a 10 GiB answer is held in memory), the deadline
/// is only the session's whole-second timer, and nothing can be streamed (`stream(for:)`,
/// events, downloads, progress). `courier-bench --only urlsession.completion` measures it.
struct CompletionHandlerTransport: Transport {
    let session: URLSession

    init() {
        session = URLSession(configuration: URLSessionTransport.defaultConfiguration())
    }

    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        guard body == nil else { throw TransportError(.invalidRequest, "the experiment sends no request bodies", requestMayHaveBeenSent: false) }
        let urlRequest = try URLSessionTransport.urlRequest(for: request, context: context)
        let (data, response) = try await session.data(for: urlRequest)
        let head = try URLSessionTransport.head(from: response)
        let responseBody = HTTPBody.holding(data)
        context.bodyChannels.wholeResponse?.leave(data, for: responseBody)
        return (head, responseBody)
    }
}
