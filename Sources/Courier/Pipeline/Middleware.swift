import HTTPTypes
import OpenAPIRuntime

/// Code that runs around every request: it can change the request, retry it, time it, or
/// replace the response.
///
/// Middleware run in the order they are given to ``APIClient``; the first is the outermost.
///
/// ```swift
/// struct RequestIDMiddleware: Middleware {
///     func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
///                    next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
///         var request = request
///         request.headerFields[HTTPField.Name("X-Request-ID")!] = UUID().uuidString
///         return try await next(request, body, context)
///     }
/// }
/// ```
public protocol Middleware: Sendable {
    /// Handles a request, usually by calling `next` with a (possibly changed) request.
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: RequestContext,
        next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?)
}
