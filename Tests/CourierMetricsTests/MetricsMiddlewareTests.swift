import Courier
import CourierMetrics
import CourierTesting
import Foundation
import HTTPTypes
import MetricsTestKit
import Testing

@Suite struct MetricsMiddlewareTests {
    private func client(_ stub: StubTransport, _ metrics: TestMetrics) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/v1")!), transport: stub,
                  middleware: [MetricsMiddleware(factory: metrics)])
    }

    private func request(_ path: String, operation: String) -> Request<Void> {
        Request<Void>(path: path, options: RequestOptions(operationName: operation))
    }

    @Test func countsRequestsAndTimesThemByMethodOperationAndStatusClass() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport()
        stub.on(.get, "/users/{id}", .text("ada"))
        let client = client(stub, metrics)
        try await client.send(request("/users/1", operation: "getUser"))
        try await client.send(request("/users/2", operation: "getUser"))
        let dimensions = [("method", "GET"), ("operation", "getUser"), ("status_class", "2xx")]
        #expect(try metrics.expectCounter("courier_requests_total", dimensions).totalValue == 2)
        #expect(try metrics.expectTimer("courier_request_duration", dimensions).values.count == 2)
        #expect(metrics.counters.allSatisfy { counter in !counter.dimensions.contains { $0.1.contains("/users") } })
    }

    @Test func countsCacheOutcomesWhenACachingMiddlewareIsInside() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport()
        stub.on(.get, "/users/{id}", StubResponse.text("ada").header(.cacheControl, "max-age=600"))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/v1")!), transport: stub,
                               middleware: [MetricsMiddleware(factory: metrics), CachingMiddleware()])
        for _ in 0..<3 { try await client.send(request("/users/1", operation: "getUser")) }
        #expect(try metrics.expectCounter("courier_cache_total", [("method", "GET"), ("operation", "getUser"), ("outcome", "miss")]).totalValue == 1)
        #expect(try metrics.expectCounter("courier_cache_total", [("method", "GET"), ("operation", "getUser"), ("outcome", "hit")]).totalValue == 2)
        #expect(stub.requests.count == 1)
    }

    @Test func recordsOpenTelemetrysRequestDurationInSeconds() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport()
        stub.on(.get, "/users/{id}", .text("ada"))
        stub.on(.get, "/broken", .status(503))
        let client = client(stub, metrics)
        let id = 7
        try await client.send(Request<Void>(path: "/users/\(id)"))
        await #expect(throws: APIError.self) { try await client.send(Request<Void>(path: "/broken")) }
        let ok = try metrics.expectRecorder("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "api.example.com"), ("server.port", "443"),
            ("url.template", "/v1/users/{}"), ("http.response.status_code", "200"),
        ])
        #expect(ok.values.count == 1)
        #expect(ok.values.allSatisfy { $0 >= 0 && $0 < 5 })              // seconds, not nanoseconds
        let failed = try metrics.expectRecorder("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "api.example.com"), ("server.port", "443"),
            ("url.template", "/v1/broken"), ("http.response.status_code", "503"), ("error.type", "503"),
        ])
        #expect(failed.values.count == 1)
    }

    @Test func countsHTTPErrorsAndTransportFailuresByKind() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport()
        stub.on(.get, "/broken", .status(503))
        stub.on(.get, "/down", .failure(TransportError(.connectionFailed, "refused")))
        let client = client(stub, metrics)
        await #expect(throws: APIError.self) { try await client.send(request("/broken", operation: "broken")) }
        await #expect(throws: APIError.self) { try await client.send(request("/down", operation: "down")) }
        #expect(try metrics.expectCounter("courier_request_failures_total",
                                          [("method", "GET"), ("operation", "broken"), ("kind", "http_5xx")]).totalValue == 1)
        #expect(try metrics.expectCounter("courier_request_failures_total",
                                          [("method", "GET"), ("operation", "down"), ("kind", "connection_failed")]).totalValue == 1)
        #expect(try metrics.expectCounter("courier_requests_total",
                                          [("method", "GET"), ("operation", "down"), ("status_class", "error")]).totalValue == 1)
        #expect(try metrics.expectCounter("courier_requests_total",
                                          [("method", "GET"), ("operation", "broken"), ("status_class", "5xx")]).totalValue == 1)
    }

    @Test("server.port is always there (the scheme's default when the URL has none); an error Courier does not know is _OTHER")
    func serverPortAndUnknownErrors() async throws {
        struct Unknown: Error {}
        let metrics = TestMetrics()
        let stub = StubTransport()
        stub.on(.get, "/ok", .text("ok"))
        stub.on(.get, "/odd", .failure(Unknown()))
        let plain = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://[::1]:8080")!), transport: stub,
                              middleware: [MetricsMiddleware(factory: metrics)])
        try await plain.send(Request<Void>(path: "/ok"))
        _ = try metrics.expectRecorder("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "::1"), ("server.port", "8080"),
            ("url.template", "/ok"), ("http.response.status_code", "200"),
        ])
        await #expect(throws: (any Error).self) { try await client(stub, metrics).send(Request<Void>(path: "/odd")) }
        _ = try metrics.expectRecorder("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "api.example.com"), ("server.port", "443"),
            ("url.template", "/v1/odd"), ("error.type", "_OTHER"),
        ])
        #expect(try metrics.expectCounter("courier_request_failures_total", [("method", "GET"), ("operation", "Request<()>"), ("kind", "other")]).totalValue == 1)
    }

    @Test("each redirect hop is one measurement of http.client.request.duration, with its own status and server")
    func oneMeasurementPerHop() async throws {
        let metrics = TestMetrics()
        let stub = StubTransport()
        stub.on(.get, "/old", StubResponse.status(301).header(.location, "https://cdn.example.com:8443/new"))
        stub.on(.get, "/new", .text("moved"))
        try await client(stub, metrics).send(Request<Void>(path: "/old"))
        let redirect = try metrics.expectRecorder("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "api.example.com"), ("server.port", "443"),
            ("url.template", "/v1/old"), ("http.response.status_code", "301"),
        ])
        let hop = try metrics.expectRecorder("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "cdn.example.com"), ("server.port", "8443"),
            ("http.response.status_code", "200"),
        ])
        #expect(redirect.values.count == 1 && hop.values.count == 1)
        #expect(try metrics.expectCounter("courier_requests_total", [("method", "GET"), ("operation", "Request<()>"), ("status_class", "2xx")]).totalValue == 1)
    }
}
