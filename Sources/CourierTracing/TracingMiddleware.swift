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
/// known (`RequestContext.urlTemplate`: a literal or interpolated `RequestPath`,
/// a `{name}` template, a macro's route), else after the method alone (`GET`), as OpenTelemetry
/// recommends. It is a child of the task's current `ServiceContext` and carries the
/// OpenTelemetry HTTP client attributes: `http.request.method`, `url.full` (secret query values
/// redacted, no user info), `url.template`, `server.address`, `server.port`, `http.response.status_code`,
/// `error.type` (the status code for 4xx/5xx, the failure kind otherwise — `timeout`,
/// `connection_failed`, `cancelled`… — and `_OTHER` for an error Courier does not know; the same
/// values as `MetricsMiddleware`'s) and `http.request.resend_count` for retries
/// and redirects, plus `courier.operation`. It ends when the response
/// body has been read (or dropped), so its duration covers the whole exchange — at once when the
/// transport already holds the body whole, whose exchange is then over. Statuses of 400
/// and above set the span status to error.
///
/// Put it *outside* `RetryMiddleware` for one span per call, or inside for one span per attempt.
///
/// Each redirect the client follows is a request of its own on the wire, and gets a span of its
/// own, as OpenTelemetry recommends: the redirected hop's span ends with its `3xx` status, and
/// the next hop's span — a sibling under the same parent, named after the method, its
/// `url.full` the hop's (secret query values redacted) — carries `http.request.resend_count`
/// (the attempts and hops before it) and is the one injected into that hop's headers.
public struct TracingMiddleware: Middleware {
    private let tracer: (any Tracer)?

    /// Creates the middleware.
    /// - Parameter tracer: the tracer to use; `nil` uses `InstrumentationSystem.tracer` at each request.
    public init(tracer: (any Tracer)? = nil) {
        self.tracer = tracer
    }

    /// Starts a client span, injects its context into the headers, and ends it when the response body ends.
    /// Each redirect hop gets a span of its own (see the type's documentation).
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        let parent = ServiceContext.current ?? .topLevel
        // OpenTelemetry's HTTP client span name: `{method} {url.template}`, or the method alone
        // when the route template is unknown (a path with ids in it would be high-cardinality).
        let name = context.urlTemplate.map { "\(request.method.rawValue) \($0)" } ?? request.method.rawValue
        let first = tracer.startSpan(name, context: parent, ofKind: .client)
        first.attributes = Self.requestAttributes(request, context: context)

        var request = request
        tracer.inject(first.context, into: &request.headerFields, using: HTTPFieldsInjector())

        // The span of the hop on the wire now: a redirect ends it with the redirect's status and
        // starts the next hop's, a sibling under the same parent, as OpenTelemetry asks for each
        // request sent ("HTTP client spans ... each time a request is resent"), with
        // `http.request.resend_count` counting the attempts and hops before it.
        let current = Locked<(span: any Span, hops: Int)>((first, 0))
        var context = context
        context.redirectWatches.append(RedirectWatch(observeHop: { [context] redirect, hop in
            current.withLock { state in
                state.span.attributes["http.response.status_code"] = redirect.status.code
                state.span.end()
                state.hops += 1
                let span = tracer.startSpan(hop.method.rawValue, context: parent, ofKind: .client)
                var attributes = Self.requestAttributes(hop, context: context, template: false)
                attributes["http.request.resend_count"] = context.attempt - 1 + state.hops
                span.attributes = attributes
                state.span = span
                var hop = hop
                tracer.inject(span.context, into: &hop.headerFields, using: HTTPFieldsInjector())
                return hop
            }
        }))

        let response: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (response, responseBody) = try await ServiceContext.withValue(first.context) {
                try await next(request, body, context)
            }
        } catch {
            let span = current.withLock { $0.span }
            span.attributes["error.type"] = OpenTelemetryAttributes.errorType(of: error)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
            throw error
        }
        let span = current.withLock { $0.span }
        let code = response.status.code
        span.attributes["http.response.status_code"] = code
        if code >= 400 {
            span.attributes["error.type"] = String(code)
            span.setStatus(SpanStatus(code: .error))
        }
        let observed = ObservedBody.wrap(responseBody) { outcome in
            if let error = outcome.error {
                span.attributes["error.type"] = OpenTelemetryAttributes.errorType(of: error)
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            span.end()
        }
        return (response, observed)
    }

    /// The request attributes of a span; `template: false` for a redirect hop, whose URL is not
    /// the route's.
    static func requestAttributes(_ request: HTTPRequest, context: RequestContext, template: Bool = true) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes["http.request.method"] = request.method.rawValue
        attributes["url.full"] = RequestSummary(request, context: context).url
        let server = OpenTelemetryAttributes.server(of: request)
        attributes["server.address"] = server.address
        if let port = server.port { attributes["server.port"] = port }
        if template, let urlTemplate = context.urlTemplate { attributes["url.template"] = urlTemplate }
        attributes["courier.operation"] = context.operationName
        if context.attempt > 1 { attributes["http.request.resend_count"] = context.attempt - 1 }
        return attributes
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
