import Courier
import CourierOpenAPI
import CourierTesting
import Foundation
import HTTPTypes
@_spi(Generated) import OpenAPIRuntime
import Testing

struct Pet: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

/// A small client written the way swift-openapi-generator writes them: operations serialize an
/// input to a request relative to the server URL and deserialize the response, all through
/// `UniversalClient`, its transport and its middlewares.
struct PetStoreClient: Sendable {
    struct UnexpectedStatus: Error { var code: Int }
    let client: UniversalClient

    init(serverURL: URL, transport: any ClientTransport, middlewares: [any ClientMiddleware] = []) {
        client = UniversalClient(serverURL: serverURL, transport: transport, middlewares: middlewares)
    }

    func addPet(_ pet: Pet) async throws -> Pet {
        try await client.send(
            input: pet,
            forOperation: "addPet",
            serializer: { pet in
                var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/pets")
                request.headerFields[.contentType] = "application/json"
                return (request, HTTPBody(try JSONEncoder().encode(pet)))
            },
            deserializer: { response, body in
                guard response.status.code == 201 else { throw UnexpectedStatus(code: response.status.code) }
                let data = try await Data(collecting: body ?? HTTPBody(), upTo: 1 << 20)
                return try JSONDecoder().decode(Pet.self, from: data)
            }
        )
    }

    func getPet(id: Int) async throws -> Pet {
        try await client.send(
            input: id,
            forOperation: "getPet",
            serializer: { id in
                var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets/\(id)")
                request.headerFields[.accept] = "application/json"
                return (request, nil)
            },
            deserializer: { response, body in
                guard response.status.code == 200 else { throw UnexpectedStatus(code: response.status.code) }
                let data = try await Data(collecting: body ?? HTTPBody(), upTo: 1 << 20)
                return try JSONDecoder().decode(Pet.self, from: data)
            }
        )
    }
}

/// A closure-backed OpenAPI transport, as in swift-openapi-runtime's own tests.
struct MockClientTransport: ClientTransport {
    var sendBlock: @Sendable (HTTPRequest, HTTPBody?, URL, String) async throws -> (HTTPResponse, HTTPBody?)
    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        try await sendBlock(request, body, baseURL, operationID)
    }
}

@Suite("OpenAPI interop")
struct OpenAPIInteropTests {
    @Test("an OpenAPI-style client sends through a Courier transport and Courier's retry and auth middleware")
    func clientThroughCourierMiddleware() async throws {
        let stub = StubTransport()
        stub.on(.get, "/api/v1/pets/{id}", [.status(503), .json(Pet(id: 7, name: "Rex"))])
        let retry = RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), jitter: .none))
        let auth = AuthenticationMiddleware(.bearer("secret-token"))
        let petStore = PetStoreClient(
            serverURL: URL(string: "https://pets.example.com/api/v1")!,
            transport: CourierTransportAdapter(stub),
            middlewares: [retry.asClientMiddleware(), CourierMiddlewareAdapter(auth)]
        )
        let pet = try await petStore.getPet(id: 7)
        #expect(pet == Pet(id: 7, name: "Rex"))
        let requests = stub.requests
        #expect(requests.count == 2)
        #expect(requests.map(\.url) == Array(repeating: "https://pets.example.com/api/v1/pets/7", count: 2))
        #expect(requests.allSatisfy { $0.headers[.authorization] == "Bearer secret-token" })
        #expect(requests.allSatisfy { $0.operationName == "getPet" })
        #expect(requests.map(\.attempt) == [1, 2])
    }

    @Test("Courier's retry inside a generated client retries a connection failure of the transport below it (OpenAPI wraps it in ClientError)")
    func retryInsideAGeneratedClientSeesTransportErrors() async throws {
        let stub = StubTransport()
        stub.on(.get, "/api/v1/pets/{id}", [.failure(TransportError(.connectionFailed, "refused", requestMayHaveBeenSent: false)),
                                            .json(Pet(id: 7, name: "Rex"))])
        let retry = RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), jitter: .none))
        let petStore = PetStoreClient(serverURL: URL(string: "https://pets.example.com/api/v1")!,
                                      transport: CourierTransportAdapter(stub), middlewares: [retry.asClientMiddleware()])
        #expect(try await petStore.getPet(id: 7) == Pet(id: 7, name: "Rex"))
        #expect(stub.requests.count == 2)
    }

    @Test("an adapter's own options (retry: .always for a POST) apply under another Courier adapter that started the context")
    func ownOptionsUnderAnotherAdapter() async throws {
        let stub = StubTransport()
        stub.on(.post, "/api/v1/pets", [.status(503), .json(Pet(id: 8, name: "Tom"), status: 201)])
        let retry = RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), jitter: .none))
        let petStore = PetStoreClient(serverURL: URL(string: "https://pets.example.com/api/v1")!, transport: CourierTransportAdapter(stub),
                                      middlewares: [LoggingMiddleware().asClientMiddleware(), retry.asClientMiddleware(options: RequestOptions(retry: .always))])
        #expect(try await petStore.addPet(Pet(id: 8, name: "Tom")) == Pet(id: 8, name: "Tom"))
        #expect(stub.requests.count == 2)
        #expect(stub.requests.allSatisfy { $0.operationName == "addPet" })
    }

    @Test("an OpenAPI transport's URLError reaches Courier as URLSessionTransport reports it: a network error, retried")
    func openAPITransportURLErrorIsANetworkFailure() async throws {
        let calls = LockedRequests()
        let transport = MockClientTransport { _, _, _, _ in
            calls.append("call")
            if calls.all.count == 1 { throw URLError(.notConnectedToInternet) }
            return (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), HTTPBody(#"{"id": 3, "name": "Kit"}"#))
        }
        let retry = RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), jitter: .none))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://127.0.0.1:8080/v2")!),
                               transport: OpenAPITransportAdapter(transport), middleware: [retry])
        #expect(try await client.send(Request<Pet>(path: "/pets/3")) == Pet(id: 3, name: "Kit"))
        #expect(calls.all.count == 2)
        let offline = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://127.0.0.1:8080/v2")!),
                                transport: OpenAPITransportAdapter(MockClientTransport { _, _, _, _ in throw URLError(.notConnectedToInternet) }))
        await #expect { try await offline.send(Request<Pet>(path: "/pets/3")) } throws: { ($0 as? APIError)?.kind == .network }
    }

    @Test("a generated client called from inside another's Courier middleware (a token refresh) runs with its own context, not the outer exchange's")
    func nestedClientGetsItsOwnContext() async throws {
        struct Recording: Transport {
            let seen: Locked<[String]>
            func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
                seen.withLock { $0.append("\(context.baseURL.absoluteString) \(context.timeout) \(context.attempt)") }
                return (HTTPResponse(status: .ok), HTTPBody(#"{"id": 2, "name": "Key"}"#))
            }
        }
        struct CallsAnotherClient: Middleware {
            let other: PetStoreClient
            func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
                _ = try await other.getPet(id: 2)
                var retried = context
                retried.attempt = 5
                return try await next(request, body, retried)
            }
        }
        let seen = Locked<[String]>([])
        let auth = PetStoreClient(serverURL: URL(string: "https://auth.example.com")!,
                                  transport: CourierTransportAdapter(Recording(seen: seen), timeout: .seconds(7)))
        let outer = PetStoreClient(serverURL: URL(string: "https://pets.example.com/api/v1")!,
                                   transport: CourierTransportAdapter(Recording(seen: seen)),
                                   middlewares: [CourierMiddlewareAdapter(RetryMiddleware()), CourierMiddlewareAdapter(CallsAnotherClient(other: auth))])
        _ = try await outer.getPet(id: 1)
        #expect(seen.current == ["https://auth.example.com 7.0 seconds 1", "https://pets.example.com/api/v1 60.0 seconds 5"])
    }

    @Test("an OpenAPI transport built on URLSession hands over Set-Cookie fields folded into one: the jar still gets each cookie")
    func foldedSetCookieThroughTheAdapter() async throws {
        let transport = MockClientTransport { _, _, _, _ in
            (HTTPResponse(status: .ok, headerFields: [.setCookie: "a=1; Path=/, b=2; Path=/"]), HTTPBody("ok"))
        }
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        let jar = CookieJar()
        configuration.cookieJar = jar
        let client = APIClient(configuration: configuration, transport: OpenAPITransportAdapter(transport))
        _ = try await client.send(Request<Data>(path: "/login"))
        #expect(jar.cookies.map(\.name).sorted() == ["a", "b"])
    }

    @Test("Courier middleware hands the request back to the OpenAPI chain relative to the base URL")
    func middlewareKeepsOpenAPIForm() async throws {
        let seen = LockedRequests()
        let transport = MockClientTransport { request, _, baseURL, operationID in
            seen.append("\(baseURL.absoluteString) \(request.path ?? "") \(operationID) \(request.headerFields[.authorization] ?? "-")")
            return (HTTPResponse(status: .ok), HTTPBody(#"{"id": 1, "name": "Tom"}"#))
        }
        let petStore = PetStoreClient(serverURL: URL(string: "https://pets.example.com/api/v1")!, transport: transport,
                                      middlewares: [AuthenticationMiddleware(.bearer("t")).asClientMiddleware()])
        _ = try await petStore.getPet(id: 1)
        #expect(seen.all == ["https://pets.example.com/api/v1 /pets/1 getPet Bearer t"])
    }

    @Test("an OpenAPI ClientTransport works as a Courier transport")
    func clientTransportAsCourierTransport() async throws {
        let seen = LockedRequests()
        let transport = MockClientTransport { request, _, baseURL, operationID in
            seen.append("\(baseURL.absoluteString) \(request.path ?? "") \(operationID)")
            return (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), HTTPBody(#"{"id": 3, "name": "Kit"}"#))
        }
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://127.0.0.1:8080/v2")!),
                               transport: OpenAPITransportAdapter(transport))
        let pet = try await client.send(Request<Pet>(path: "/pets/{id}", pathParameters: ["id": "3"], options: RequestOptions(operationName: "getPet")))
        #expect(pet == Pet(id: 3, name: "Kit"))
        #expect(seen.all == ["http://127.0.0.1:8080 /v2/pets/3 getPet"])
    }

    @Test("a Courier transport adapted to OpenAPI and back behaves as the original")
    func roundTrip() async throws {
        let stub = StubTransport()
        stub.on(.post, "/v1/pets", .json(Pet(id: 11, name: "New"), status: 201))
        let doubleWrapped = OpenAPITransportAdapter(stub.asClientTransport())
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://pets.example.com/v1")!), transport: doubleWrapped)
        let pet = try await client.send(Request<Pet>(method: .post, path: "/pets", body: .json(Pet(id: 0, name: "New"))))
        #expect(pet.id == 11)
        #expect(stub.requests.first?.url == "https://pets.example.com/v1/pets")
        #expect(try stub.requests.first?.decodedBody(Pet.self) == Pet(id: 0, name: "New"))
    }
}

final class LockedRequests: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var values: [String] = []
    func append(_ value: String) { lock.lock(); values.append(value); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return values }
}
