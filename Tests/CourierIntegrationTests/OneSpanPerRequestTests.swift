import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import CourierTracing
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// Tracing over AsyncHTTPClient against the loopback server: one client span per request,
/// Courier's, named `{method} {url.template}`, with the query's secrets redacted.
///
/// Every request runs inside `withTracer(tracer)`, so the recording tracer is what
/// `InstrumentationSystem.tracer` returns in the task — the tracer `TracingMiddleware()` uses
/// when given none, and the tracer AsyncHTTPClient's `HTTPClient.Configuration` picks up when
/// it is created without one. A transport whose client kept AsyncHTTPClient's own tracing would
/// record a second span (the control test shows it does), so these tests fail if it comes back.
@Suite("One span per request over AsyncHTTPClient")
struct OneSpanPerRequestTests {
    /// A request whose path has a template and whose query carries a secret.
    private static let request = Request<Echo>(
        path: "/echo/{id}", pathParameters: ["id": "42"],
        query: [URLQueryItem(name: "page", value: "2"), URLQueryItem(name: "access_token", value: "SECRET-TOKEN")]
    )

    /// Sends ``request`` through `TracingMiddleware()` over `makeTransport()`, with `tracer` as the task's tracer.
    private func spans(
        _ tracer: InMemoryTracer, server: TestServer, makeTransport: () -> AsyncHTTPClientTransport
    ) async throws -> [FinishedInMemorySpan] {
        try await withTracer(tracer) {
            let transport = makeTransport()
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: transport, middleware: [TracingMiddleware()])
            let echo = try await client.send(Self.request)
            #expect(echo.query?.contains("access_token=SECRET-TOKEN") == true, "the server still gets the real query")
        }
        return tracer.finishedSpans
    }

    /// The spans of ``request`` over a transport on a client of its own, created inside
    /// `withTracer(tracer)` with `configuration()`, shut down afterwards.
    private func spans(
        _ tracer: InMemoryTracer, server: TestServer, configuration: () -> HTTPClient.Configuration
    ) async throws -> [FinishedInMemorySpan] {
        let client = withTracer(tracer) { HTTPClient(configuration: configuration()) }
        do {
            let spans = try await spans(tracer, server: server) {
                AsyncHTTPClientTransport(client: client, clientReadTimeout: AsyncHTTPClientTransport.recommendedReadTimeout)
            }
            try await client.shutdown()
            return spans
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func expectOneRedactedSpan(_ spans: [FinishedInMemorySpan], server: TestServer) {
        #expect(spans.count == 1, "spans: \(spans.map(\.operationName))")
        guard let span = spans.first else { return }
        #expect(span.operationName == "GET /echo/{id}")
        #expect(span.kind == .client)
        #expect(span.attributes["url.template"]?.toSpanAttribute() == .string("/echo/{id}"))
        let port = server.baseURL.port ?? 0
        #expect(span.attributes["url.full"]?.toSpanAttribute() == .string("http://127.0.0.1:\(port)/echo/42?page=2&access_token=<redacted>"))
        let everything = spans.map { "\($0.operationName) \($0.attributes)" }.joined()
        #expect(!everything.contains("SECRET-TOKEN"), "no span holds the token: \(everything)")
    }

    @Test("a client configured with recommendedConfiguration(): one span, the query redacted")
    func recommendedConfiguration() async throws {
        try await withTestServer { (server: TestServer) async throws in
            let tracer = InMemoryTracer()
            let spans = try await spans(tracer, server: server) { AsyncHTTPClientTransport.recommendedConfiguration() }
            expectOneRedactedSpan(spans, server: server)
        }
    }

    @Test("the transport's shared client: one span, the query redacted")
    func sharedClient() async throws {
        try await withTestServer { (server: TestServer) async throws in
            let tracer = InMemoryTracer()
            let spans = try await spans(tracer, server: server) { AsyncHTTPClientTransport() }
            expectOneRedactedSpan(spans, server: server)
        }
    }

    /// The control: the setup above does see AsyncHTTPClient's own span when its tracing is on.
    @Test("control: with AsyncHTTPClient's tracing on, a second span records the query unredacted")
    func controlOwnTracingOn() async throws {
        try await withTestServer { (server: TestServer) async throws in
            let tracer = InMemoryTracer()
            let spans = try await spans(tracer, server: server) {
                var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
                configuration.tracing = HTTPClient.TracingConfiguration()   // AsyncHTTPClient's default: the task's tracer
                return configuration
            }
            #expect(spans.count == 2, "spans: \(spans.map(\.operationName))")
            let own = spans.first { $0.operationName == "GET" }     // AsyncHTTPClient names its span after the method
            #expect(own.map { "\($0.attributes)".contains("SECRET-TOKEN") } == true, "and records the raw query")
        }
    }
}
