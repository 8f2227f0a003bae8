import Courier
import CoreMetrics
import Foundation
import HTTPTypes
import Metrics
import OpenAPIRuntime

/// Records request metrics with swift-metrics, labelled by method, operation and status class —
/// never by URL, so the number of series stays small.
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory())
/// let client = APIClient(configuration: configuration, transport: transport,
///                        middleware: [LoggingMiddleware(), MetricsMiddleware(), RetryMiddleware()])
/// ```
///
/// | Metric | Kind | Dimensions |
/// |---|---|---|
/// | `courier_requests_total` | counter | `method`, `operation`, `status_class` (`2xx`…`5xx`, or `error`) |
/// | `courier_request_duration` | timer (nanoseconds) | `method`, `operation`, `status_class` |
/// | `courier_request_failures_total` | counter | `method`, `operation`, `kind` (`timeout`, `connection_failed`, `connection_lost`, `tls_failure`, `cancelled`, `http_4xx`, `http_5xx`, `other`…) |
/// | `courier_cache_total` | counter, only with a `CachingMiddleware` inside this one | `method`, `operation`, `outcome` (`hit`, `stale`, `revalidated`, `miss`) |
/// | `http.client.request.duration` | recorder (histogram), seconds, one per request on the wire (each redirect hop) | OpenTelemetry's: `http.request.method`, `http.response.status_code`, `server.address`, `server.port`, `url.template` (when known), `error.type` (the status code for 4xx/5xx, the failure kind otherwise, `_OTHER` for an error Courier does not know — the values `TracingMiddleware` uses) |
///
/// The last one follows the OpenTelemetry HTTP client semantic conventions, so dashboards
/// built for other OpenTelemetry HTTP clients work unchanged; its dimensions are all
/// low-cardinality (`url.template` is the route, never a path with ids).
///
/// The duration runs until the response body has been read (or dropped); for a body the
/// transport already holds whole, the exchange is over when the response arrives, and the
/// duration ends there. Put the middleware
/// outside `RetryMiddleware` to count calls, inside to count attempts.
public struct MetricsMiddleware: Middleware {
    /// The prefix of every metric label (default `courier`).
    public let prefix: String
    private let factory: (any MetricsFactory)?

    /// Creates the middleware.
    /// - Parameters:
    ///   - prefix: the start of each label, e.g. `courier` → `courier_requests_total`.
    ///   - factory: where metrics go; `nil` uses `MetricsSystem.factory`.
    public init(prefix: String = "courier", factory: (any MetricsFactory)? = nil) {
        self.prefix = prefix
        self.factory = factory
    }

    /// Sends the request on and records its metrics when the response body ends (or at once on failure).
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let start = ContinuousClock.now
        let base = [("method", request.method.rawValue), ("operation", context.operationName)]
        // OpenTelemetry's `http.client.request.duration` is one measurement per request on the
        // wire: a redirect ends the hop it answered (recorded with its 3xx status) and starts
        // the next hop's, whose dimensions are the hop's own (method, server; no route template).
        let firstHop = Self.semanticDimensions(request, template: context.urlTemplate)
        let hop = Locked((dimensions: firstHop, start: start))
        var context = context
        context.redirectWatches.append(RedirectWatch(observeHop: { redirect, next in
            let ended = hop.withLock { state in
                defer { state = (Self.semanticDimensions(next, template: nil), .now) }
                return state
            }
            recordDuration(ended.dimensions + [("http.response.status_code", String(redirect.status.code))], start: ended.start)
            return next
        }))
        let response: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (response, responseBody) = try await next(request, body, context)
        } catch {
            let last = hop.withLock { $0 }
            record(base, statusClass: "error", start: start)
            recordDuration(last.dimensions + [("error.type", OpenTelemetryAttributes.errorType(of: error))], start: last.start)
            count(failure: Self.kind(of: error), base)
            throw error
        }
        let last = hop.withLock { $0 }
        let code = response.status.code
        let statusClass = "\(code / 100)xx"
        if let outcome = response.cacheOutcome { count(cache: outcome, base) }
        if code >= 400 { count(failure: "http_\(statusClass)", base) }
        let dimensions = last.dimensions + [("http.response.status_code", String(code))]
        let observed = ObservedBody.wrap(responseBody) { outcome in
            record(base, statusClass: statusClass, start: start)
            if let error = outcome.error {
                recordDuration(dimensions + [("error.type", OpenTelemetryAttributes.errorType(of: error))], start: last.start)
                count(failure: Self.kind(of: error), base)
            } else if code >= 400 {
                recordDuration(dimensions + [("error.type", String(code))], start: last.start)
            } else {
                recordDuration(dimensions, start: last.start)
            }
        }
        return (response, observed)
    }

    /// The request's dimensions of `http.client.request.duration`: method, `server.address`,
    /// `server.port` (required by the conventions; the scheme's default when the URL has none)
    /// and `url.template` when known.
    static func semanticDimensions(_ request: HTTPRequest, template: String?) -> [(String, String)] {
        let server = OpenTelemetryAttributes.server(of: request)
        var dimensions = [("http.request.method", request.method.rawValue), ("server.address", server.address)]
        if let port = server.port { dimensions.append(("server.port", String(port))) }
        if let template { dimensions.append(("url.template", template)) }
        return dimensions
    }

    /// OpenTelemetry's `http.client.request.duration`, in seconds.
    private func recordDuration(_ dimensions: [(String, String)], start: ContinuousClock.Instant) {
        let seconds = start.duration(to: .now).secondsValue
        if let factory {
            Recorder(label: "http.client.request.duration", dimensions: dimensions, aggregate: true, factory: factory).record(seconds)
        } else {
            Recorder(label: "http.client.request.duration", dimensions: dimensions, aggregate: true).record(seconds)
        }
    }

    private func record(_ base: [(String, String)], statusClass: String, start: ContinuousClock.Instant) {
        let dimensions = base + [("status_class", statusClass)]
        let elapsed = start.duration(to: .now)
        let nanoseconds = elapsed.saturatingNanoseconds
        if let factory {
            Counter(label: "\(prefix)_requests_total", dimensions: dimensions, factory: factory).increment()
            Timer(label: "\(prefix)_request_duration", dimensions: dimensions, factory: factory).recordNanoseconds(nanoseconds)
        } else {
            Counter(label: "\(prefix)_requests_total", dimensions: dimensions).increment()
            Timer(label: "\(prefix)_request_duration", dimensions: dimensions).recordNanoseconds(nanoseconds)
        }
    }

    private func count(cache outcome: CacheOutcome, _ base: [(String, String)]) {
        let dimensions = base + [("outcome", outcome.rawValue)]
        if let factory {
            Counter(label: "\(prefix)_cache_total", dimensions: dimensions, factory: factory).increment()
        } else {
            Counter(label: "\(prefix)_cache_total", dimensions: dimensions).increment()
        }
    }

    private func count(failure kind: String, _ base: [(String, String)]) {
        let dimensions = base + [("kind", kind)]
        if let factory {
            Counter(label: "\(prefix)_request_failures_total", dimensions: dimensions, factory: factory).increment()
        } else {
            Counter(label: "\(prefix)_request_failures_total", dimensions: dimensions).increment()
        }
    }

    /// A low-cardinality name for a failure (`courier_request_failures_total`'s `kind`): the
    /// OpenTelemetry `error.type`, with `other` for what it calls `_OTHER`.
    static func kind(of error: any Error) -> String {
        let type = OpenTelemetryAttributes.errorType(of: error)
        return type == OpenTelemetryAttributes.other ? "other" : type
    }
}
