import Foundation
import Hummingbird
import NIOCore

/// Helpers that build the test server's responses.
enum Reply {
    /// Encodes `value` as JSON (sorted keys, unescaped slashes) with `Content-Type: application/json`.
    static func json(
        _ value: some Encodable,
        status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:]
    ) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return raw(try encoder.encode(value), status: status, contentType: "application/json", headers: headers)
    }

    /// Sends `data` as the whole body with the given content type and a Content-Length.
    static func raw(
        _ data: some Sequence<UInt8>,
        status: HTTPResponse.Status = .ok,
        contentType: String,
        headers: HTTPFields = [:]
    ) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A JSON error body `{"error": code, "message": message}`.
    static func error(
        _ status: HTTPResponse.Status,
        code: String,
        message: String,
        headers: HTTPFields = [:]
    ) throws -> Response {
        try json(["error": code, "message": message], status: status, headers: headers)
    }

    /// A response with no body at all and no Content-Length (for 204, 304 and redirects
    /// that should carry nothing).
    static func empty(_ status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var response = Response(status: status, headers: headers)
        if status.code == 204 || status.code == 304 || (100..<200).contains(status.code) {
            response.headers[.contentLength] = nil
        }
        return response
    }
}

extension Request {
    /// The first query parameter called `name`, percent-decoded (`+` read as a space), or nil.
    func queryValue(_ name: String) -> String? {
        guard let query = uri.query else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard decodeQueryComponent(parts[0]) == name else { continue }
            return parts.count > 1 ? decodeQueryComponent(parts[1]) : ""
        }
        return nil
    }

    /// The query parameter `name` as an integer, or `defaultValue` when absent or not a number.
    func queryInt(_ name: String, default defaultValue: Int) -> Int {
        queryValue(name).flatMap { Int($0) } ?? defaultValue
    }

    private func decodeQueryComponent(_ component: Substring) -> String {
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// The request context of the test server's routes: Hummingbird's basic context plus the
/// connection, so ``TestServer/stop()`` can close connections that do not finish in time.
struct TestServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}

/// The router type every route group registers on.
typealias TestServerRouter = Router<TestServerContext>

/// Wraps the router's responder to count every request that reaches the server (including
/// those that end in 404 or 405) and to remember each open connection.
struct CountingResponder<Base: HTTPResponder>: HTTPResponder where Base.Context == TestServerContext {
    /// The responder that answers the request.
    let base: Base
    /// Where the count and the open connections are kept.
    let state: TestServerState

    func respond(to request: Request, context: TestServerContext) async throws -> Response {
        state.countRequest()
        state.track(context.channel)
        return try await base.respond(to: request, context: context)
    }
}

/// Every method the "any method" routes (`/echo/**`, `/headers`, `/redirect-to`) answer.
let anyHTTPMethod: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

extension Router {
    /// Registers `handler` for `path` under every method in ``anyHTTPMethod``.
    func onAnyMethod(
        _ path: RouterPath,
        use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) {
        for method in anyHTTPMethod {
            on(path, method: method, use: handler)
        }
    }
}
