import Courier
import CourierTesting
import CourierTracing
import Foundation
import HTTPTypes
import InMemoryTracing
import Testing
import Tracing

@Suite struct TracingMiddlewareTests {
    private func client(_ stub: StubTransport, _ tracer: InMemoryTracer, middleware: [any Middleware] = []) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com:8443/v1")!), transport: stub,
                  middleware: [TracingMiddleware(tracer: tracer)] + middleware)
    }

    @Test func recordsAClientSpanWithTheHTTPSemanticAttributes() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport()
        stub.on(.get, "/users/{id}", .text("ada"))
        let client = client(stub, tracer)
        try await client.send(Request<Void>(path: "/users/7", query: [URLQueryItem(name: "access_token", value: "SECRET")],
                                            options: RequestOptions(operationName: "getUser")))
        let span = try #require(tracer.finishedSpans.first)
        #expect(tracer.finishedSpans.count == 1)
        #expect(span.operationName == "GET /v1/users/7")     // a literal path is its own template
        #expect(span.kind == .client)
        #expect(span.attributes["http.request.method"]?.toSpanAttribute() == .string("GET"))
        #expect(span.attributes["url.full"]?.toSpanAttribute() == .string("https://api.example.com:8443/v1/users/7?access_token=<redacted>"))
        #expect(span.attributes["server.address"]?.toSpanAttribute() == .string("api.example.com"))
        #expect(span.attributes["server.port"]?.toSpanAttribute() == .int64(8443))
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(span.attributes["courier.operation"]?.toSpanAttribute() == .string("getUser"))
        #expect(span.attributes["error.type"] == nil)
    }

    @Test func theSpanIsNamedAfterTheRouteTemplateWhenItIsKnown() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        let client = client(stub, tracer)
        let id = "42"
        try await client.send(Request<Void>(path: "/users/\(id)/posts?page=2"))
        try await client.send(Request<Void>(path: "/orders/{order}", pathParameters: ["order": "9"]))
        let built = "/users/" + id                   // a path built at run time: no known template
        try await client.send(Request<Void>(path: built))
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["GET /v1/users/{}/posts", "GET /v1/orders/{order}", "GET"])
        #expect(spans[0].attributes["url.template"]?.toSpanAttribute() == .string("/v1/users/{}/posts"))
        #expect(spans[2].attributes["url.template"] == nil)
        #expect(spans.allSatisfy { !$0.operationName.contains("42") && !$0.operationName.contains("9") })
    }

    @Test func injectsTheTraceContextIntoTheRequestHeaders() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport()
        stub.on(.get, "/x", .text("ok"))
        try await client(stub, tracer).send(Request<Void>(path: "/x"))
        let span = try #require(tracer.finishedSpans.first)
        let headers = try #require(stub.requests.first?.headers)
        #expect(headers[HTTPField.Name(InMemoryTracer.traceIDKey)!] == span.traceID)
        #expect(headers[HTTPField.Name(InMemoryTracer.spanIDKey)!] == span.spanID)
        #expect(tracer.performedContextInjections.count == 1)
    }

    @Test func marksErrorsWithTheirType() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport()
        stub.on(.get, "/missing", .status(404))
        stub.on(.get, "/down", .failure(TransportError(.timeout, "slow")))
        let client = client(stub, tracer)
        await #expect(throws: APIError.self) { try await client.send(Request<Void>(path: "/missing")) }
        await #expect(throws: APIError.self) { try await client.send(Request<Void>(path: "/down")) }
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        #expect(spans[0].attributes["error.type"]?.toSpanAttribute() == .string("404"))
        #expect(spans[0].status?.code == .error)
        #expect(spans[1].attributes["error.type"]?.toSpanAttribute() == .string("timeout"))
        #expect(spans[1].errors.count == 1)
    }

    @Test func isAChildOfTheCurrentSpan() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport()
        stub.on(.get, "/x", .text("ok"))
        let client = client(stub, tracer)
        let parent = tracer.startSpan("parent")
        try await ServiceContext.withValue(parent.context) {
            try await client.send(Request<Void>(path: "/x"))
        }
        parent.end()
        let child = try #require(tracer.finishedSpans.first { $0.operationName == "GET /v1/x" })
        #expect(child.traceID == parent.traceID)
        #expect(child.parentSpanID == parent.spanID)
    }

    @Test("an error Courier does not know is error.type _OTHER, never a type name")
    func unknownErrorsAreOther() async throws {
        struct SomethingInternal: Error {}
        let tracer = InMemoryTracer()
        let stub = StubTransport()
        stub.on(.get, "/odd", .failure(SomethingInternal()))
        await #expect(throws: (any Error).self) { try await client(stub, tracer).send(Request<Void>(path: "/odd")) }
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("_OTHER"))
    }

    @Test("each redirect hop is a span of its own: the 3xx ends the first, the next carries resend_count and goes out in the hop's headers")
    func oneSpanPerRedirectHop() async throws {
        let tracer = InMemoryTracer()
        let stub = StubTransport()
        stub.on(.post, "/orders", StubResponse.status(303).header(.location, "/v1/orders/9?access_token=SECRET"))
        stub.on(.get, "/orders/{id}", .text("order"))
        let parent = tracer.startSpan("parent")
        try await ServiceContext.withValue(parent.context) {
            try await client(stub, tracer).send(Request<Void>(method: .post, path: "/orders", body: .json(["item": "book"])))
        }
        parent.end()
        let spans = tracer.finishedSpans.filter { $0.operationName != "parent" }
        #expect(spans.map(\.operationName) == ["POST /v1/orders", "GET"])
        guard spans.count == 2 else { return }
        #expect(spans[0].attributes["http.response.status_code"]?.toSpanAttribute() == .int64(303))
        #expect(spans[0].status?.code != .error)
        #expect(spans[0].attributes["http.request.resend_count"] == nil)
        #expect(spans[1].attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(spans[1].attributes["http.request.resend_count"]?.toSpanAttribute() == .int64(1))
        #expect(spans[1].attributes["url.full"]?.toSpanAttribute() == .string("https://api.example.com:8443/v1/orders/9?access_token=<redacted>"))
        #expect(spans[1].attributes["url.template"] == nil)
        #expect(spans.allSatisfy { $0.parentSpanID == parent.spanID && $0.traceID == parent.traceID })
        // What went out on the wire: each hop with its own span's id.
        #expect(stub.requests.count == 2)
        let sent = stub.requests.map { $0.headers[HTTPField.Name(InMemoryTracer.spanIDKey)!] }
        #expect(sent == [spans[0].spanID, spans[1].spanID])
    }
}
