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
/// | `courier_cache_total` | counter, only with a ``Courier/CachingMiddleware`` inside this one | `method`, `operation`, `outcome` (`hit`, `stale`, `revalidated`, `miss`) |
/// | `http.client.request.duration` | recorder (histogram), seconds | OpenTelemetry's: `http.request.method`, `http.response.status_code`, `server.address`, `url.template` (when known), `error.type` (the status code for 4xx/5xx, the failure kind otherwise) |
///
/// The last one follows the OpenTelemetry HTTP client semantic conventions, so dashboards
/// built for other OpenTelemetry HTTP clients work unchanged; its dimensions are all
/// low-cardinality (`url.template` is the route, never a path with ids).
///
/// The duration runs until the response body has been read (or dropped); for a body the
/// transport already holds whole, the exchange is over when the response arrives, and the
/// duration ends there. Put the middleware
/// outside ``RetryMiddleware`` to count calls, inside to count attempts.
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
        var semantic = [("http.request.method", request.method.rawValue), ("server.address", Self.host(of: request))]
        if let template = context.urlTemplate { semantic.append(("url.template", template)) }
        let response: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (response, responseBody) = try await next(request, body, context)
        } catch {
            let kind = Self.kind(of: error)
            record(base, statusClass: "error", start: start)
            recordDuration(semantic + [("error.type", kind)], start: start)
            count(failure: kind, base)
            throw error
        }
        let code = response.status.code
        let statusClass = "\(code / 100)xx"
        if let outcome = response.cacheOutcome { count(cache: outcome, base) }
        if code >= 400 { count(failure: "http_\(statusClass)", base) }
        semantic.append(("http.response.status_code", String(code)))
        if code >= 400 { semantic.append(("error.type", String(code))) }
        let dimensions = semantic
        let observed = ObservedBody.wrap(responseBody) { outcome in
            record(base, statusClass: statusClass, start: start)
            if let error = outcome.error {
                let kind = Self.kind(of: error)
                recordDuration(dimensions.filter { $0.0 != "error.type" } + [("error.type", kind)], start: start)
                count(failure: kind, base)
            } else {
                recordDuration(dimensions, start: start)
            }
        }
        return (response, observed)
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

    /// The host the request goes to, without the port (`server.address`).
    static func host(of request: HTTPRequest) -> String {
        var authority = Substring(request.authority ?? "")
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        if let colon = authority.lastIndex(of: ":") { return String(authority[..<colon]) }
        return String(authority)
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

    /// A low-cardinality name for a failure.
    static func kind(of error: any Error) -> String {
        if let failure = error as? TransportError {
            let name = failure.kind.description.lowercased().replacingOccurrences(of: " ", with: "_")
            return name == "transport_failure" ? "other" : name
        }
        if error is CancellationError { return "cancelled" }
        return "other"
    }
}
