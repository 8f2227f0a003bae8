import Courier
import CourierMetrics
import CourierSigning
import CourierTestServer
import CourierTracing
import Foundation
import HTTPTypes
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing

/// The whole documented middleware stack, in its documented order, over both transports: what
/// each piece adds arrives at a real server, and what each piece observes is recorded.
@Suite("The middleware stack over real transports")
struct MiddlewareStackIntegrationTests {
    @Test("logging, metrics, tracing, retry, auth, base parameters, interceptors, signing and validation together", arguments: TransportKind.allCases)
    func fullStack(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let logs = InMemoryLogHandler()
            var logger = Logger(label: "stack") { _ in logs }
            logger.logLevel = .info
            let metrics = TestMetrics()
            let tracer = InMemoryTracer()
            var interceptors = InterceptorMiddleware()
            interceptors.beforeSend(for: "/echo") { request, _ in
                var request = request
                request.headerFields[HTTPField.Name("X-Intercepted")!] = "yes"
                return request
            }
            let client = APIClient(
                configuration: APIConfiguration(baseURL: server.baseURL),
                transport: kind.makeTransport(),
                middleware: [
                    LoggingMiddleware(logger: logger, level: .info),
                    MetricsMiddleware(factory: metrics),
                    TracingMiddleware(tracer: tracer),
                    ValidationMiddleware(statusCodes: 200..<300, contentTypes: ["application/json"]),
                    RetryMiddleware(),
                    AuthenticationMiddleware(.apiKey("key-123", header: "X-Api-Key")),
                    BaseParametersMiddleware([URLQueryItem(name: "app_version", value: "1.2")]),
                    interceptors,
                    SigningMiddleware(.md5Parameters(MD5ParameterSignature(secret: "s3cret"))),
                ]
            )
            let echo = try await client.send(Request<Echo>(path: "/echo", query: [.init(name: "b", value: "2"), .init(name: "a", value: "1")]))

            // On the wire.
            #expect(echo.headers["x-api-key"] == "key-123")
            #expect(echo.headers["x-intercepted"] == "yes")
            let query = echo.query ?? ""
            #expect(query.contains("app_version=1.2"))
            let signature = query.split(separator: "&").first { $0.hasPrefix("pub_sign=") }.map { String($0.dropFirst(9)) }
            #expect(signature?.count == 32 && signature == signature?.uppercased(), "an upper-case MD5 signature: \(query)")
            #expect(echo.headers[InMemoryTracer.traceIDKey.lowercased()] != nil, "trace context injected: \(echo.headers.keys.sorted())")

            // Observed.
            let span = try #require(tracer.finishedSpans.first)
            #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
            #expect(metrics.counters.contains { $0.label.contains("requests") })
            let lines = logs.entries.filter { $0.level == .info }
            #expect(lines.count == 1)
            #expect(!logs.entries.map { "\($0.message) \($0.metadata)" }.joined().contains("key-123"), "the API key is never logged")
        }
    }
}
