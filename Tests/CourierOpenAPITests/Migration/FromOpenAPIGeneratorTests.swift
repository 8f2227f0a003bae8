// The Courier column of the article "Migrating from swift-openapi-generator"
// (MigratingFromOpenAPIGenerator.md): every Courier snippet of the article, run against a
// StubTransport. Keep the two in step.
import Courier
import CourierOpenAPI
import CourierTesting
import Foundation
import HTTPTypes
@_spi(Generated) import OpenAPIRuntime
import Testing

@Suite("Migrating from swift-openapi-generator")
struct FromOpenAPIGeneratorTests {
    struct Greeting: Codable, Sendable, Equatable {
        var message: String
    }

    /// Stands in for the `Client` that swift-openapi-generator writes for a document with one
    /// operation, `GET /greet?name=` answering a `Greeting`: like generated code, it serializes
    /// the input, sends it through `UniversalClient` (the middlewares, then the transport) and
    /// deserializes the response.
    struct Client: Sendable {
        struct UndocumentedStatus: Error { var statusCode: Int }
        private let client: UniversalClient

        init(serverURL: URL, transport: any ClientTransport, middlewares: [any ClientMiddleware] = []) {
            client = UniversalClient(serverURL: serverURL, transport: transport, middlewares: middlewares)
        }

        func getGreeting(name: String) async throws -> Greeting {
            try await client.send(
                input: name,
                forOperation: "getGreeting",
                serializer: { name in
                    var query = URLComponents()
                    query.queryItems = [URLQueryItem(name: "name", value: name)]
                    var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/greet?" + (query.percentEncodedQuery ?? ""))
                    request.headerFields[.accept] = "application/json"
                    return (request, nil)
                },
                deserializer: { response, body in
                    guard response.status.code == 200 else { throw UndocumentedStatus(statusCode: response.status.code) }
                    return try JSONDecoder().decode(Greeting.self, from: try await Data(collecting: body ?? HTTPBody(), upTo: 1 << 20))
                }
            )
        }
    }

    /// An OpenAPI `ClientTransport` you already have (swift-openapi-urlsession, a custom one).
    struct ExistingClientTransport: ClientTransport {
        var answer: @Sendable (HTTPRequest, URL) async throws -> (HTTPResponse, HTTPBody?)
        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
            try await answer(request, baseURL)
        }
    }

    /// A ClientMiddleware, written as a Courier middleware.
    struct AuthorizationHeader: Middleware {
        let value: String

        func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                       next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            request.headerFields[.authorization] = value
            return try await next(request, body, context)
        }
    }

    /// Test scaffolding: what the snippets hand to the app.
    final class Screen: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var _events: [String] = []
        var events: [String] { lock.lock(); defer { lock.unlock() }; return _events }
        func record(_ event: String) { lock.lock(); _events.append(event); lock.unlock() }
    }

    let transport = StubTransport()
    let token = "t-123"
    let screen = Screen()
    func show(_ message: String) { screen.record(message) }
    func showUndocumented(_ status: Int) { screen.record("HTTP \(status)") }
    func showError(_ text: String) { screen.record("error: " + text) }

    // MARK: - Snippets

    @Test("keep the generated client: a Courier transport and Courier middleware under it")
    func generatedClientOverCourier() async throws {
        transport.on(.get, "/api/greet", [.status(503), .json(Greeting(message: "Hello, Ada!"))])

        let client = Client(
            serverURL: URL(string: "https://api.example.com/api")!,
            transport: CourierTransportAdapter(transport),
            middlewares: [
                LoggingMiddleware().asClientMiddleware(),
                RetryMiddleware().asClientMiddleware(),
                CourierMiddlewareAdapter(AuthenticationMiddleware(.bearer(token))),
            ]
        )

        let greeting = try await client.getGreeting(name: "Ada")
        #expect(greeting.message == "Hello, Ada!")
        let sent = transport.requests
        #expect(sent.map(\.url) == Array(repeating: "https://api.example.com/api/greet?name=Ada", count: 2))
        #expect(sent.map(\.attempt) == [1, 2])
        #expect(sent.allSatisfy { $0.headers[.authorization] == "Bearer t-123" && $0.operationName == "getGreeting" })
    }

    @Test("an operation call → a Courier request; undocumented statuses → APIError.statusCode")
    func operationToRequest() async throws {
        let api = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/api")!),
                            transport: transport)

        for answer in [StubResponse.json(Greeting(message: "Hello, Ada!")), .status(418)] {
            transport.reset()
            transport.on(.get, "/api/greet", answer)

            do {
                let greeting = try await api.send(Request<Greeting>(path: "/greet", query: [URLQueryItem(name: "name", value: "Ada")]))
                show(greeting.message)
            } catch let error as APIError {
                if let status = error.statusCode { showUndocumented(status) } else { showError(error.description) }
            }

            #expect(transport.requests.last?.target == "/api/greet?name=Ada")
        }

        #expect(screen.events == ["Hello, Ada!", "HTTP 418"])
    }

    @Test("a ClientMiddleware → a Courier Middleware, usable in both clients")
    func clientMiddlewareToMiddleware() async throws {
        transport.on(.get, "/api/greet", .json(Greeting(message: "Hi")))

        let api = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/api")!),
                            transport: transport, middleware: [AuthorizationHeader(value: "Bearer \(token)")])
        let generated = Client(serverURL: URL(string: "https://api.example.com/api")!,
                               transport: CourierTransportAdapter(transport),
                               middlewares: [AuthorizationHeader(value: "Bearer \(token)").asClientMiddleware()])

        _ = try await api.send(Request<Greeting>(path: "/greet"))
        _ = try await generated.getGreeting(name: "Ada")

        #expect(transport.requests.map { $0.headers[.authorization] } == ["Bearer t-123", "Bearer t-123"])
    }

    @Test("an existing ClientTransport under a Courier client")
    func clientTransportUnderCourier() async throws {
        let clientTransport = ExistingClientTransport { request, baseURL in
            (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
             HTTPBody(#"{"message": "from \#(baseURL.absoluteString)\#(request.path ?? "")"}"#))
        }

        let api = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/api")!),
                            transport: OpenAPITransportAdapter(clientTransport))

        let greeting = try await api.send(Request<Greeting>(path: "/greet"))
        #expect(greeting.message == "from https://api.example.com/api/greet")
    }

    @Test("asDecodedServerSentEventsWithJSONData → events(for:)")
    func serverSentEvents() async throws {
        let stream = "data: {\"message\": \"one\"}\n\ndata: {\"message\": \"two\"}\n\n"
        transport.on(.get, "/api/greetings", .data(Data(stream.utf8), contentType: "text/event-stream"))
        let api = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/api")!),
                            transport: transport)

        let events = try await api.events(for: Request<Void>(path: "/greetings"))
        for try await event in events {
            let greeting = try JSONDecoder().decode(Greeting.self, from: Data((event.data ?? "").utf8))
            show(greeting.message)
        }

        #expect(screen.events == ["one", "two"])
        #expect(transport.requests.last?.headers[.accept] == "text/event-stream")
    }

    @Test("an APIProtocol mock → a StubTransport under the generated client")
    func testingGeneratedClient() async throws {
        let stub = StubTransport()
        stub.on(.get, "/api/greet", .json(Greeting(message: "Hello, Ada!")))
        let client = Client(serverURL: URL(string: "https://api.example.com/api")!, transport: CourierTransportAdapter(stub))

        let greeting = try await client.getGreeting(name: "Ada")

        #expect(greeting.message == "Hello, Ada!")
        #expect(stub.requests.last?.target == "/api/greet?name=Ada")
    }
}
