import Courier
import CourierAsyncHTTPClient
import Foundation
import Logging

/// Courier with the default middleware stack — logging at info to a handler that drops the
/// lines, retry, bearer authentication — against the same client with no middleware
/// (`ahc.courier`), both over ``AsyncHTTPClientTransport``, the transport where Courier's own
/// cost shows most.
enum MiddlewareScenarios {
    /// `middleware.stack`, sharing the `HTTPClient` of `ahc.courier`.
    static func scenarios(baseURL: URL, ahc: AHCScenarios) -> [Scenario] {
        let (logger, middleware) = defaultStack()
        let client = APIClient(
            configuration: APIConfiguration(baseURL: baseURL, logger: logger),
            transport: AsyncHTTPClientTransport(client: ahc.courier, clientReadTimeout: AsyncHTTPClientTransport.recommendedReadTimeout),
            middleware: middleware)
        return [
            Scenario(key: "middleware.stack", label: "Courier + logging, retry, auth (AHC)", family: "middleware") {
                try await client.send(ListUsers()).check()
            },
        ]
    }

    /// The default stack, outermost first: logging at info to a ``DroppingLogHandler``, retry
    /// with the default policy, bearer authentication; and the logger it logs to.
    static func defaultStack() -> (logger: Logger, middleware: [any Middleware]) {
        let logger = Logger(label: "courier-bench") { _ in DroppingLogHandler() }
        return (logger, [
            LoggingMiddleware(logger: logger, level: .info),
            RetryMiddleware(),
            AuthenticationMiddleware(.bearer("bench-token")),
        ])
    }
}

/// A log handler at `.info` that formats nothing and writes nothing: Courier's logging runs as
/// in production (the level lets the line through, the message is built), minus the output.
struct DroppingLogHandler: LogHandler {
    /// `.info`, so that info lines are built and handed over.
    var logLevel: Logger.Level = .info
    /// Handler metadata (kept, never printed).
    var metadata: Logger.Metadata = [:]
    /// One metadata value.
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    /// Drops the line.
    func log(event: LogEvent) {}
}
