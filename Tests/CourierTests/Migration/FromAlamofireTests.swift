// The Courier column of the article "Migrating from Alamofire" (MigratingFromAlamofire.md):
// every Courier snippet of the article, run against a StubTransport. Keep the two in step.
import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import OpenAPIRuntime
import Testing

@Suite("Migrating from Alamofire")
struct FromAlamofireTests {
    struct User: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct NewUser: Codable, Sendable {
        var name: String
    }

    struct Profile: Codable, Sendable, Equatable {
        var avatar: String
    }

    /// A URLRequestConvertible router case, as a request struct.
    struct GetUser: APIRequest {
        typealias Response = User
        let id: Int
        var path: RequestPath { "/users/{id}" }
        var pathParameters: [String: String] { ["id": String(id)] }
    }

    /// A RequestAdapter, as a middleware.
    struct DeviceHeader: Middleware {
        func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                       next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            request.headerFields[HTTPField.Name("X-Device")!] = "sim-1"
            return try await next(request, body, context)
        }
    }

    /// An EventMonitor, as a middleware that watches every exchange.
    struct Timing: Middleware {
        let report: @Sendable (_ operation: String, _ status: Int, _ duration: Duration) -> Void

        func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                       next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
            let start = ContinuousClock.now
            let (response, responseBody) = try await next(request, body, context)
            report(context.operationName, response.status.code, start.duration(to: .now))
            return (response, responseBody)
        }
    }

    /// Where an AuthenticationInterceptor kept its credential.
    actor TokenStore {
        private(set) var accessToken = AccessToken("expired")
        private(set) var refreshes = 0

        func refresh() async throws -> AccessToken {
            refreshes += 1
            accessToken = AccessToken("fresh-\(refreshes)")      // ask your auth server here
            return accessToken
        }
    }

    /// An Authenticator, as a token provider.
    struct SessionTokens: TokenProvider {
        let store: TokenStore
        func token() async throws -> AccessToken { await store.accessToken }
        func refresh(rejected: AccessToken) async throws -> AccessToken { try await store.refresh() }
    }

    /// Test scaffolding: what the snippets hand to the app (a screen, a progress view, metrics).
    final class Screen: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var _events: [String] = []
        var events: [String] { lock.lock(); defer { lock.unlock() }; return _events }
        func record(_ event: String) { lock.lock(); _events.append(event); lock.unlock() }
    }

    final class ProgressView: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var values: [Double] = []
        var progress: Double {
            get { lock.lock(); defer { lock.unlock() }; return values.last ?? 0 }
            set { lock.lock(); values.append(newValue); lock.unlock() }
        }
        var updates: Int { lock.lock(); defer { lock.unlock() }; return values.count }
    }

    final class Metrics: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var _lines: [String] = []
        var lines: [String] { lock.lock(); defer { lock.unlock() }; return _lines }
        func record(_ operation: String, _ status: Int, _ duration: Duration) {
            lock.lock(); _lines.append("\(operation) \(status)"); lock.unlock()
        }
    }

    let transport = StubTransport()
    let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
    let screen = Screen()
    func showNotFound() { screen.record("not found") }
    func showError(_ text: String) { screen.record("error: " + text) }

    // MARK: - Snippets

    @Test("one client per API: configuration, transport, middleware")
    func clientPerAPI() async throws {
        transport.on(.get, "/users/42", .json(User(id: 42, name: "Ada")))

        let client = APIClient(
            configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
            transport: transport,
            middleware: [RetryMiddleware(), LoggingMiddleware()]
        )

        let user = try await client.send(Request<User>(path: "/users/{id}", pathParameters: ["id": "42"]))
        #expect(user == User(id: 42, name: "Ada"))
        #expect(transport.requests.count == 1)
        #expect(transport.requests.last?.url == "https://api.example.com/users/42")
    }

    @Test("responseDecodable / serializingDecodable → send")
    func getDecodes() async throws {
        transport.on(.get, "/users/42", .json(User(id: 42, name: "Ada")))
        let client = APIClient(configuration: configuration, transport: transport)

        let user = try await client.send(Request<User>(path: "/users/{id}", pathParameters: ["id": "42"]))

        #expect(user.name == "Ada")
        #expect(transport.requests.last?.method == .get)
        #expect(transport.requests.last?.headers[.accept] == "application/json")
    }

    @Test("JSONParameterEncoder body and HTTPHeaders → .json body and header(_:_:)")
    func postJSONWithHeader() async throws {
        transport.on(.post, "/users", .json(User(id: 7, name: "Ada"), status: 201))
        let client = APIClient(configuration: configuration, transport: transport)
        let token = "t-123"

        let created = try await client.send(
            Request<User>(method: .post, path: "/users", body: .json(NewUser(name: "Ada")))
                .header("Authorization", "Bearer \(token)")
        )

        #expect(created == User(id: 7, name: "Ada"))
        let sent = try #require(transport.requests.last)
        #expect(sent.method == .post)
        #expect(sent.headers[.contentType] == "application/json")
        #expect(sent.headers[.authorization] == "Bearer t-123")
        #expect(try sent.decodedBody(NewUser.self).name == "Ada")
    }

    @Test("parameters on a GET → query items, in order")
    func queryParameters() async throws {
        transport.on(.get, "/users", .json([User(id: 1, name: "Ada")]))
        let client = APIClient(configuration: configuration, transport: transport)

        let users = try await client.send(Request<[User]>(path: "/users", query: .query([("page", 2), ("q", "ada lovelace")])))

        #expect(users.count == 1)
        #expect(transport.requests.last?.query == "page=2&q=ada%20lovelace")
    }

    @Test("a URLRequestConvertible router → an APIRequest struct per endpoint")
    func routerToRequestStruct() async throws {
        transport.on(.get, "/users/{id}", .json(User(id: 42, name: "Ada")))
        let client = APIClient(configuration: configuration, transport: transport)

        let user = try await client.send(GetUser(id: 42))

        #expect(user.id == 42)
        #expect(transport.requests.last?.path == "/users/42")
        #expect(transport.requests.last?.operationName == "GetUser")
    }

    @Test("RequestAdapter → Middleware")
    func adapterToMiddleware() async throws {
        transport.on(.get, "/users/{id}", .json(User(id: 1, name: "A")))

        let client = APIClient(configuration: configuration, transport: transport, middleware: [DeviceHeader()])

        _ = try await client.send(GetUser(id: 1))
        #expect(transport.requests.last?.headers[HTTPField.Name("X-Device")!] == "sim-1")
    }

    @Test("RetryPolicy(retryLimit: 3) → RetryMiddleware(policy:) with maxAttempts 4")
    func retryPolicy() async throws {
        transport.on(.get, "/users/{id}", [.status(503), .status(429), .status(500), .json(User(id: 1, name: "A"))])

        var policy = Courier.RetryPolicy.default
        policy.maxAttempts = 4                     // Alamofire's retryLimit: 3 counts retries; this counts attempts
        policy.initialDelay = .milliseconds(100)
        policy.retryableStatuses.insert(429)
        let client = APIClient(configuration: configuration, transport: transport,
                               middleware: [RetryMiddleware(policy: policy)])

        let user = try await client.send(GetUser(id: 1))
        #expect(user.id == 1)
        #expect(transport.requests.map(\.attempt) == [1, 2, 3, 4])
    }

    @Test("a POST is not retried unless the request says so")
    func postNotRetried() async throws {
        transport.on(.post, "/users", [.status(503), .json(User(id: 2, name: "B"))])
        var policy = Courier.RetryPolicy.default
        policy.initialDelay = .milliseconds(10)
        let client = APIClient(configuration: configuration, transport: transport, middleware: [RetryMiddleware(policy: policy)])

        await #expect(throws: APIError.self) {
            _ = try await client.send(Request<User>(method: .post, path: "/users", body: .json(NewUser(name: "B"))))
        }
        #expect(transport.requests.count == 1)

        let created = try await client.send(
            Request<User>(method: .post, path: "/users", body: .json(NewUser(name: "B")),
                          options: RequestOptions(retry: .always)))
        #expect(created.id == 2)
    }

    @Test("AuthenticationInterceptor + Authenticator → AuthenticationMiddleware + TokenProvider")
    func authenticationInterceptor() async throws {
        transport.on(.get, "/users/{id}") { request in
            request.headers[.authorization] == "Bearer fresh-1" ? .json(User(id: 5, name: "E")) : .status(401)
        }
        let store = TokenStore()

        let client = APIClient(configuration: configuration, transport: transport,
                               middleware: [AuthenticationMiddleware(.bearer(SessionTokens(store: store)))])

        let user = try await client.send(GetUser(id: 5))
        #expect(user.id == 5)
        #expect(await store.refreshes == 1)
        #expect(transport.requests.map { $0.headers[.authorization] } == ["Bearer expired", "Bearer fresh-1"])
    }

    @Test("EventMonitor → a middleware that watches, and LoggingMiddleware")
    func eventMonitor() async throws {
        transport.on(.get, "/users/{id}", .json(User(id: 3, name: "C")))
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "api") { _ in handler }
        logger.logLevel = .info
        let metrics = Metrics()

        let client = APIClient(
            configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!, logger: logger),
            transport: transport,
            middleware: [
                LoggingMiddleware(level: .info),  // GET https://api.example.com/users/3 → 200 (2 ms, 21 bytes)
                Timing { operation, status, duration in metrics.record(operation, status, duration) },
            ]
        )

        _ = try await client.send(GetUser(id: 3))
        #expect(metrics.lines == ["GetUser 200"])
        #expect(handler.entries.count == 1)
        let line = "\(handler.entries.first?.message ?? "")"
        #expect(line.hasPrefix("GET https://api.example.com/users/3 → 200"))
    }

    @Test("validate() and AFError.responseCode → APIError and statusCode")
    func validationAndErrors() async throws {
        transport.on(.get, "/users/404", .status(404, message: "No user 404"))
        transport.on(.get, "/users/500", .status(500))
        transport.on(.get, "/users/7", .data(Data("<html>maintenance</html>".utf8), contentType: "text/html"))

        let client = APIClient(configuration: configuration, transport: transport,
                               middleware: [ValidationMiddleware(statusCodes: 200..<300, contentTypes: ["application/json"])])

        for id in ["404", "500", "7"] {
            do {
                _ = try await client.send(Request<User>(path: "/users/{id}", pathParameters: ["id": id]))
            } catch let error as APIError where error.statusCode == 404 {
                showNotFound()
            } catch let error as APIError {
                showError(error.description)   // one line: status, method, URL, the server's message
            }
        }

        let events = screen.events
        #expect(events.count == 3)
        #expect(events.first == "not found")
        #expect(events.dropFirst().first?.hasPrefix("error: HTTP 500 for GET https://api.example.com/users/500") == true)
        #expect(events.last?.contains("text/html") == true)
    }

    @Test("AF.upload(multipartFormData:) + uploadProgress → .multipart + upload(_:progress:)")
    func multipartUpload() async throws {
        transport.on(.post, "/avatar", .json(Profile(avatar: "https://cdn.example.com/me.jpg")))
        let client = APIClient(configuration: configuration, transport: transport)
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10])
        let progressView = ProgressView()

        var form = MultipartForm()
        form.append(jpeg, name: "avatar", fileName: "me.jpg", contentType: "image/jpeg")
        let profile = try await client.upload(Request<Profile>(method: .post, path: "/avatar", body: .multipart(form))) { progress in
            progressView.progress = progress.fractionCompleted ?? 0
        }

        #expect(profile.avatar.hasSuffix("me.jpg"))
        let sent = try #require(transport.requests.last)
        #expect(sent.headers[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(sent.bodyText.contains(#"name="avatar"; filename="me.jpg""#))
        #expect(progressView.progress == 1)
        #expect(progressView.updates >= 2)
    }

    @Test("AF.download(_:to:) + downloadProgress → download(_:to:progress:)")
    func download() async throws {
        transport.on(.get, "/exports/{id}", .data(Data("zip-bytes".utf8), contentType: "application/zip"))
        let client = APIClient(configuration: configuration, transport: transport)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-af-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("export.zip")
        let progressView = ProgressView()

        let result = try await client.download(Request<Data>(path: "/exports/{id}", pathParameters: ["id": "7"]),
                                                to: destination) { progress in
            progressView.progress = progress.fractionCompleted ?? 0
        }

        #expect(result.byteCount == 9)
        #expect(try Data(contentsOf: destination) == Data("zip-bytes".utf8))
        #expect(progressView.progress == 1)
    }

    @Test("request.cancel() → cancel the task")
    func cancellation() async throws {
        transport.on(.get, "/slow", StubResponse.json(#"{"id":1,"name":"A"}"#).delayed(by: .seconds(30)))
        let client = APIClient(configuration: configuration, transport: transport)

        let task = Task { try await client.send(Request<User>(path: "/slow")) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()

        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test("URLProtocol stubs (Mocker, OHHTTPStubs) → StubTransport")
    func stubTransport() async throws {
        let stub = StubTransport()
        stub.on(.get, "/users/{id}", .json(User(id: 42, name: "Ada")))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: stub)

        let user = try await client.send(GetUser(id: 42))

        #expect(user.name == "Ada")
        #expect(stub.requests.last?.path == "/users/42")
    }
}
