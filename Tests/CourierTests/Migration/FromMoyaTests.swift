// The Courier column of the article "Migrating from Moya" (MigratingFromMoya.md): every Courier
// snippet of the article, run against a StubTransport. Keep the two in step.
import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("Migrating from Moya")
struct FromMoyaTests {
    struct User: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct NewUser: Codable, Sendable {
        var name: String
    }

    struct Credentials: Codable, Sendable {
        var username: String
        var password: String
    }

    struct Session: Codable, Sendable, Equatable {
        var token: String
    }

    /// A TargetType enum, as request factories: each endpoint carries its response type.
    enum UserAPI {
        static func user(id: Int) -> Request<User> {
            Request(path: "/users/{id}", pathParameters: ["id": String(id)])
        }

        static func createUser(name: String) -> Request<User> {
            Request(method: .post, path: "/users", body: .json(NewUser(name: name)))
        }

        static func search(query: String, page: Int) -> Request<[User]> {
            Request(path: "/users/search", query: .query([("q", query), ("page", page)]))
        }

        static func login(_ credentials: Credentials) -> Request<Session> {
            Request(method: .post, path: "/login", body: .json(credentials),
                    options: RequestOptions(authentication: .none))
        }
    }

    /// A PluginType (prepare + didReceive), as a middleware.
    struct AppVersion: Middleware {
        func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                       next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            request.headerFields[HTTPField.Name("X-App-Version")!] = "2.3.0"         // prepare
            let (response, responseBody) = try await next(request, body, context)   // willSend … didReceive
            context.logger.info("\(context.operationName) → \(response.status.code)")
            return (response, responseBody)                                         // process: return another
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
    let screen = Screen()
    let token = "t-123"
    var configuration: APIConfiguration {
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.defaultHeaders[HTTPField.Name("X-App")!] = "demo"         // TargetType.headers for every target
        return configuration
    }
    func show(_ user: User) { screen.record("user \(user.id)") }
    func showNotFound() { screen.record("not found") }
    func showError(_ text: String) { screen.record("error: " + text) }

    // MARK: - Snippets

    @Test("a TargetType enum → request factories that carry their response type")
    func targetsToRequests() async throws {
        transport.on(.get, "/users/{id}", .json(User(id: 42, name: "Ada")))
        transport.on(.post, "/users", .json(User(id: 7, name: "Bob"), status: 201))
        transport.on(.get, "/users/search", .json([User(id: 1, name: "Ada")]))
        let client = APIClient(configuration: configuration, transport: transport)

        let user = try await client.send(UserAPI.user(id: 42))
        let created = try await client.send(UserAPI.createUser(name: "Bob"))
        let found = try await client.send(UserAPI.search(query: "ada", page: 2))

        #expect(user == User(id: 42, name: "Ada"))
        #expect(created.id == 7)
        #expect(found.map(\.id) == [1])
        let sent = transport.requests
        #expect(sent.map(\.target) == ["/users/42", "/users", "/users/search?q=ada&page=2"])
        #expect(sent[1].method == .post)
        #expect(try sent[1].decodedBody(NewUser.self).name == "Bob")
        #expect(sent.allSatisfy { $0.headers[HTTPField.Name("X-App")!] == "demo" })
    }

    @Test("provider.request(_:completion:) → send, async or with a completion")
    func providerRequest() async throws {
        transport.on(.get, "/users/{id}", .json(User(id: 42, name: "Ada")))

        let client = APIClient(configuration: configuration, transport: transport, middleware: [LoggingMiddleware()])
        let user = try await client.send(UserAPI.user(id: 42))
        #expect(user.id == 42)

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            client.send(UserAPI.user(id: 42)) { result in     // Result<User, APIError>
                switch result {
                case .success(let user): show(user)
                case .failure(let error): showError(error.description)
                }
                done.resume()
            }
        }
        #expect(screen.events == ["user 42"])
    }

    @Test("a plugin → a middleware")
    func pluginToMiddleware() async throws {
        transport.on(.get, "/users/{id}", .json(User(id: 1, name: "A")))

        let client = APIClient(configuration: configuration, transport: transport, middleware: [AppVersion()])

        _ = try await client.send(UserAPI.user(id: 1))
        #expect(transport.requests.last?.headers[HTTPField.Name("X-App-Version")!] == "2.3.0")
    }

    @Test("AccessTokenPlugin + authorizationType → AuthenticationMiddleware + authentication: .none")
    func accessTokenPlugin() async throws {
        transport.on(.get, "/users/{id}", .json(User(id: 1, name: "A")))
        transport.on(.post, "/login", .json(Session(token: "s")))

        let client = APIClient(configuration: configuration, transport: transport,
                               middleware: [AuthenticationMiddleware(.bearer(token))])

        _ = try await client.send(UserAPI.login(Credentials(username: "ada", password: "pw")))
        _ = try await client.send(UserAPI.user(id: 1))
        #expect(transport.requests.map { $0.headers[.authorization] } == [nil, "Bearer t-123"])
    }

    @Test("sampleData + stubClosure → StubTransport")
    func stubbing() async throws {
        let stub = StubTransport()
        stub.on(.get, "/users/{id}", .json(#"{"id": 42, "name": "Ada"}"#))
        stub.on(.get, "/users/404", .status(404, message: "No such user"))
        stub.on(.get, "/users/9", StubResponse.json(#"{"id": 9, "name": "Slow"}"#).delayed(by: .milliseconds(200)))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: stub)

        #expect(try await client.send(UserAPI.user(id: 42)).name == "Ada")
        let start = ContinuousClock.now
        #expect(try await client.send(UserAPI.user(id: 9)).name == "Slow")
        #expect(start.duration(to: .now) >= .milliseconds(200))
        await #expect(throws: APIError.self) { _ = try await client.send(UserAPI.user(id: 404)) }
        #expect(stub.requests.count == 3)
    }

    @Test("MoyaError.statusCode → APIError.statusCode; a 404 is an error, not a response")
    func errors() async throws {
        transport.on(.get, "/users/404", .status(404, message: "No such user"))
        transport.on(.get, "/users/500", .status(500))
        transport.on(.get, "/users/1", .json(User(id: 1, name: "A")))
        let client = APIClient(configuration: configuration, transport: transport)

        for id in [404, 500, 1] {
            do {
                show(try await client.send(UserAPI.user(id: id)))
            } catch let error as APIError where error.statusCode == 404 {
                showNotFound()
            } catch let error as APIError {
                showError(error.description)
            }
        }

        #expect(screen.events.count == 3)
        #expect(screen.events.first == "not found")
        #expect(screen.events.dropFirst().first?.contains("HTTP 500") == true)
        #expect(screen.events.last == "user 1")
    }

    @Test("validationType .none → accept the statuses you read yourself")
    func acceptingStatuses() async throws {
        transport.on(.get, "/users/404", .status(404, message: "No such user"))
        let client = APIClient(configuration: configuration, transport: transport)

        let response = try await client.response(for: Request<Data>(
            path: "/users/{id}", pathParameters: ["id": "404"],
            options: RequestOptions(acceptableStatusCodes: Set(200..<500))))

        #expect(response.statusCode == 404)
        #expect(String(decoding: response.body, as: UTF8.self).contains("No such user"))
    }
}

