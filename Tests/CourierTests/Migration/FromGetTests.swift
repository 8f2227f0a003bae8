// The Courier column of the article "Migrating from Get" (MigratingFromGet.md): every Courier
// snippet of the article, run against a StubTransport. Keep the two in step.
import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Migrating from kean/Get")
struct FromGetTests {
    struct User: Codable, Sendable, Equatable {
        var login: String
    }

    struct Repo: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct NewRepo: Codable, Sendable {
        var name: String
    }

    struct Envelope<T: Decodable>: Decodable {
        var data: T
    }

    /// `decoderForRequest` for one endpoint: the request decodes its own response.
    struct GetCurrentUser: APIRequest {
        typealias Response = User
        var path: RequestPath { "/user" }
        func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> User {
            try context.decodeJSON(Envelope<User>.self, from: body).data
        }
    }

    /// `client(_:shouldRetry:error:attempts:)` refreshing on 401, as a token provider.
    actor Tokens {
        private(set) var current = AccessToken("old")
        private(set) var refreshCount = 0
        func refresh() -> AccessToken {
            refreshCount += 1
            current = AccessToken("new")          // ask your auth server here
            return current
        }
    }

    struct GitHubTokens: TokenProvider {
        let tokens: Tokens
        func token() async throws -> AccessToken { await tokens.current }
        func refresh(rejected: AccessToken) async throws -> AccessToken { await tokens.refresh() }
    }

    let transport = StubTransport()

    // MARK: - Snippets

    @Test("APIClient(baseURL:) + send(_:).value → APIClient(configuration:transport:) + send(_:)")
    func send() async throws {
        transport.on(.get, "/user", .json(User(login: "kean")))

        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.github.com")!),
                               transport: transport)
        let user = try await client.send(Request<User>(path: "/user"))

        #expect(user.login == "kean")
        #expect(transport.requests.last?.url == "https://api.github.com/user")
    }

    @Test("Request(path:method:query:body:headers:) → Request(method:path:query:headers:body:)")
    func postWithQueryBodyAndHeaders() async throws {
        transport.on(.post, "/user/repos", .json(Repo(id: 1, name: "courier"), status: 201))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.github.com")!),
                               transport: transport)

        let request = Request<Repo>(method: .post, path: "/user/repos",
                                    query: [URLQueryItem(name: "visibility", value: "private")],
                                    body: .json(NewRepo(name: "courier")))
            .header("X-GitHub-Api-Version", "2022-11-28")
        let repo = try await client.send(request)

        #expect(repo == Repo(id: 1, name: "courier"))
        let sent = try #require(transport.requests.last)
        #expect(sent.method == .post)
        #expect(sent.target == "/user/repos?visibility=private")
        #expect(sent.headers[HTTPField.Name("X-GitHub-Api-Version")!] == "2022-11-28")
        #expect(sent.headers[.contentType] == "application/json")
        #expect(try sent.decodedBody(NewRepo.self).name == "courier")
    }

    @Test("Response<T> → response(for:)")
    func response() async throws {
        transport.on(.get, "/user", StubResponse.json(User(login: "kean")).header(HTTPField.Name("X-RateLimit-Remaining")!, "59"))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.github.com")!),
                               transport: transport)

        let response = try await client.response(for: Request<User>(path: "/user"))
        let remaining = response.response.headerFields[HTTPField.Name("X-RateLimit-Remaining")!]

        #expect(response.value.login == "kean")
        #expect(response.statusCode == 200)
        #expect(response.body.count > 0)
        #expect(remaining == "59")
        #expect(response.metrics.duration >= .zero)
    }

    @Test("Request.id → the operation name in logs, metrics and traces")
    func operationName() async throws {
        transport.on(.get, "/user", .json(User(login: "kean")))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.github.com")!),
                               transport: transport)

        _ = try await client.send(Request<User>(path: "/user", options: RequestOptions(operationName: "getUser")))

        #expect(transport.requests.last?.operationName == "getUser")
    }

    @Test("willSendRequest + shouldRetry on 401 → AuthenticationMiddleware + TokenProvider")
    func tokenRefresh() async throws {
        transport.on(.get, "/user") { request in
            request.headers[.authorization] == "Bearer new" ? .json(User(login: "kean")) : .status(401)
        }
        let tokens = Tokens()

        let client = APIClient(
            configuration: APIConfiguration(baseURL: URL(string: "https://api.github.com")!),
            transport: transport,
            middleware: [AuthenticationMiddleware(.bearer(GitHubTokens(tokens: tokens)))]
        )

        async let first = client.send(Request<User>(path: "/user"))
        async let second = client.send(Request<User>(path: "/user"))
        let users = try await [first, second]

        #expect(users.map(\.login) == ["kean", "kean"])
        #expect(await tokens.refreshCount == 1)            // two 401s, one refresh
    }

    @Test("validateResponse → acceptable status codes")
    func validateResponse() async throws {
        transport.on(.get, "/repos/{owner}/{repo}", .status(304))
        transport.on(.get, "/missing", .status(404, message: "Not Found"))
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.github.com")!)
        configuration.acceptableStatusCodes = Set(200..<300).union([304])
        let client = APIClient(configuration: configuration, transport: transport)

        let (head, _) = try await client.data(for: Request<Data>(path: "/repos/{owner}/{repo}",
                                                                 pathParameters: ["owner": "kean", "repo": "Get"]))
        #expect(head.status.code == 304)

        var notFound = false
        func showNotFound() { notFound = true }

        do {
            _ = try await client.send(Request<Data>(path: "/missing"))
        } catch let error as APIError where error.statusCode == 404 {    // Get: .unacceptableStatusCode(404)
            showNotFound()
        }

        #expect(notFound)
    }

    @Test("decoderForRequest → the client's decoder, or decode(_:body:context:) on one request")
    func decoders() async throws {
        struct Event: Codable, Sendable { var createdAt: String }
        transport.on(.get, "/events", .json(#"[{"created_at": "2024-01-01"}]"#))
        transport.on(.get, "/user", .json(#"{"data": {"login": "kean"}}"#))

        var configuration = APIConfiguration(baseURL: URL(string: "https://api.github.com")!)
        configuration.useSnakeCaseKeys()
        let client = APIClient(configuration: configuration, transport: transport)

        let events = try await client.send(Request<[Event]>(path: "/events"))
        let user = try await client.send(GetCurrentUser())

        #expect(events.first?.createdAt == "2024-01-01")
        #expect(user.login == "kean")
    }

    @Test("download(for:) → download(_:to:progress:)")
    func download() async throws {
        transport.on(.get, "/repos/kean/Get/zipball", .data(Data("PK..".utf8), contentType: "application/zip"))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.github.com")!),
                               transport: transport)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-get-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("Get.zip")

        let download = try await client.download(Request<Data>(path: "/repos/kean/Get/zipball"), to: destination) { _ in }

        #expect(download.fileURL == destination)
        #expect(try Data(contentsOf: destination) == Data("PK..".utf8))
    }
}
