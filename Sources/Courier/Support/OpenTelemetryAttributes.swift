import Foundation
import HTTPTypes

/// The OpenTelemetry HTTP client attributes that ``MetricsMiddleware`` (CourierMetrics) and
/// ``TracingMiddleware`` (CourierTracing) both report, computed in one place so that a span and
/// a measurement of the same exchange always agree.
package enum OpenTelemetryAttributes {
    /// `error.type` for a failure: the transport failure's kind in snake case (`timeout`,
    /// `connection_failed`, `connection_lost`, `tls_failure`, `invalid_request`,
    /// `local_file_failure`), `cancelled` for a cancellation, and `_OTHER` — the value the
    /// conventions reserve for errors the instrumentation does not know — for anything else.
    /// A type name is never used: it would be unbounded and could differ between a span and a
    /// measurement.
    package static func errorType(of error: any Error) -> String {
        if let failure = error as? TransportError {
            if failure.kind == .other { return other }
            return failure.kind.description.lowercased().replacingOccurrences(of: " ", with: "_")
        }
        if error is CancellationError { return "cancelled" }
        return other
    }

    /// The conventions' value for an error type the instrumentation does not know.
    package static let other = "_OTHER"

    /// `server.address` and `server.port` of a request: the authority's host (user info and IPv6
    /// brackets removed) and its port, or the scheme's default port (80, 443) when it has none.
    package static func server(of request: HTTPRequest) -> (address: String, port: Int?) {
        server(authority: request.authority ?? "", scheme: request.scheme ?? "https")
    }

    /// ``server(of:)`` for an authority and scheme.
    package static func server(authority: String, scheme: String) -> (address: String, port: Int?) {
        var host = Substring(authority)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        var port: Int?
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let rest = host[host.index(after: close)...]
            if rest.hasPrefix(":") { port = Int(rest.dropFirst()) }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            port = Int(host[host.index(after: colon)...])
            host = host[..<colon]
        }
        let scheme = scheme.lowercased()
        return (String(host), port ?? (scheme == "http" ? 80 : scheme == "https" ? 443 : nil))
    }
}
