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
    ///
    /// `next` is `@escaping` so a middleware may keep using it after it returned (the cache's
    /// background revalidation does); a middleware that does not may declare it non-escaping,
    /// as the example above does.
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        context: RequestContext,
        next: @escaping HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?)
}
