import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tracing

/// Records a client span per exchange with swift-distributed-tracing, and propagates the trace
/// context (W3C `traceparent`, or whatever the bootstrapped tracer injects) in the request headers.
///
/// ```swift
/// InstrumentationSystem.bootstrap(OTelTracer(...))
/// let client = APIClient(configuration: configuration, transport: transport,
///                        middleware: [LoggingMiddleware(), TracingMiddleware(), RetryMiddleware()])
/// ```
///
/// The span is named `{method} {url.template}` (`GET /v1/users/{id}`) when the route template is
/// known (``Courier/RequestContext/urlTemplate``: a literal or interpolated ``Courier/RequestPath``,
/// a `{name}` template, a macro's route), else after the method alone (`GET`), as OpenTelemetry
/// recommends. It is a child of the task's current `ServiceContext` and carries the
/// OpenTelemetry HTTP client attributes: `http.request.method`, `url.full` (secret query values
/// redacted, no user info), `url.template`, `server.address`, `server.port`, `http.response.status_code`,
/// `error.type` (the status code for 4xx/5xx, the failure kind otherwise) and
/// `http.request.resend_count` for retries, plus `courier.operation`. It ends when the response
/// body has been read (or dropped), so its duration covers the whole exchange — at once when the
/// transport already holds the body whole, whose exchange is then over. Statuses of 400
/// and above set the span status to error.
///
/// Put it *outside* ``RetryMiddleware`` for one span per call, or inside for one span per attempt.
public struct TracingMiddleware: Middleware {
    private let tracer: (any Tracer)?

    /// Creates the middleware.
    /// - Parameter tracer: the tracer to use; `nil` uses `InstrumentationSystem.tracer` at each request.
    public init(tracer: (any Tracer)? = nil) {
        self.tracer = tracer
    }

    /// Starts a client span, injects its context into the headers, and ends it when the response body ends.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        let parent = ServiceContext.current ?? .topLevel
        // OpenTelemetry's HTTP client span name: `{method} {url.template}`, or the method alone
        // when the route template is unknown (a path with ids in it would be high-cardinality).
        let name = context.urlTemplate.map { "\(request.method.rawValue) \($0)" } ?? request.method.rawValue
        let span = tracer.startSpan(name, context: parent, ofKind: .client)
        span.attributes = Self.requestAttributes(request, context: context)

        var request = request
        tracer.inject(span.context, into: &request.headerFields, using: HTTPFieldsInjector())

        let response: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (response, responseBody) = try await ServiceContext.withValue(span.context) {
                try await next(request, body, context)
            }
        } catch {
            span.attributes["error.type"] = Self.errorType(error)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
            throw error
        }
        let code = response.status.code
        span.attributes["http.response.status_code"] = code
        if code >= 400 {
            span.attributes["error.type"] = String(code)
            span.setStatus(SpanStatus(code: .error))
        }
        let observed = ObservedBody.wrap(responseBody) { outcome in
            if let error = outcome.error {
                span.attributes["error.type"] = Self.errorType(error)
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            span.end()
        }
        return (response, observed)
    }

    static func requestAttributes(_ request: HTTPRequest, context: RequestContext) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes["http.request.method"] = request.method.rawValue
        let scheme = request.scheme ?? "https"
        let authority = request.authority ?? ""
        attributes["url.full"] = RequestSummary(request, context: context).url
        let (host, port) = Self.split(authority: authority, scheme: scheme)
        attributes["server.address"] = host
        if let port { attributes["server.port"] = port }
        if let template = context.urlTemplate { attributes["url.template"] = template }
        attributes["courier.operation"] = context.operationName
        if context.attempt > 1 { attributes["http.request.resend_count"] = context.attempt - 1 }
        return attributes
    }

    /// The host and port of an authority (`[::1]:8080`, `example.com`), the port defaulting by scheme.
    static func split(authority: String, scheme: String) -> (String, Int?) {
        var hostPart = Substring(authority)
        if let at = hostPart.lastIndex(of: "@") { hostPart = hostPart[hostPart.index(after: at)...] }
        var port: Int?
        if hostPart.hasPrefix("["), let close = hostPart.firstIndex(of: "]") {
            let rest = hostPart[hostPart.index(after: close)...]
            if rest.hasPrefix(":") { port = Int(rest.dropFirst()) }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            port = Int(hostPart[hostPart.index(after: colon)...])
            hostPart = hostPart[..<colon]
        }
        return (String(hostPart), port ?? (scheme == "http" ? 80 : scheme == "https" ? 443 : nil))
    }

    static func errorType(_ error: any Error) -> String {
        if let failure = error as? TransportError {
            let name = failure.kind.description.lowercased().replacingOccurrences(of: " ", with: "_")
            return name == "transport_failure" ? "other" : name
        }
        if error is CancellationError { return "cancelled" }
        return String(describing: type(of: error))
    }
}

/// Writes trace context into request headers (`traceparent`, `tracestate`, `baggage`…).
public struct HTTPFieldsInjector: Injector {
    /// Creates the injector.
    public init() {}

    /// Sets header `key` to `value` (a value with CR, LF or NUL, or an invalid name, is dropped).
    public func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key), (try? HeaderValidation.validate(value: value, name: key)) != nil else { return }
        carrier[name] = value
    }
}
