// The Courier column of the article "Porting protocol requests with a response type"
// (PortingProtocolRequests.md): every Courier snippet of the article, run against a
// StubTransport. Keep the two in step.
import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Porting protocol requests with a response type")
struct ProtocolRequestsTests {
    struct User: Codable, Sendable, Identifiable, Equatable {
        let id: String
        let name: String
        let email: String
        let avatarURL: URL?
        let createdAt: Int
        let updatedAt: Int

        enum CodingKeys: String, CodingKey {
            case id, name, email
            case avatarURL = "avatar_url"
            case createdAt = "created_at"
            case updatedAt = "updated_at"
        }
    }

    struct GetUserRequest: APIRequest {
        typealias Response = User
        let id: String
        var path: RequestPath { "/v1/users/\(id)" }     // id is encoded as one segment
    }

    struct ListUsersRequest: APIRequest {
        typealias Response = Page<User>
        let page: Int
        let perPage: Int
        let search: String?                      // was `query`: Courier's `query` is the list of query items

        var path: RequestPath { "/v1/users" }
        var query: [URLQueryItem] {
            var items: [URLQueryItem] = .query([("page", page), ("per_page", perPage)])
            if let search, !search.isEmpty { items.append(URLQueryItem(name: "q", value: search)) }
            return items
        }
    }

    final class UserService: Sendable {
        private let client: APIClient

        init(client: APIClient) {
            self.client = client
        }

        func getUser(id: String) async throws -> User {
            try await client.send(GetUserRequest(id: id))
        }

        func listUsers(page: Int = 1, perPage: Int = 20, search: String? = nil) async throws -> Page<User> {
            try await client.send(ListUsersRequest(page: page, perPage: perPage, search: search))
        }
    }

    final class MyServiceClient: Sendable {
        let users: UserService

        convenience init(baseURL: URL, apiKey: String, transport: any Transport) {
            let configuration = APIConfiguration(baseURL: baseURL, timeout: .seconds(30))
            let client = APIClient(configuration: configuration, transport: transport,
                                   middleware: [AuthenticationMiddleware(.apiKey(apiKey, header: "X-API-Key"))])
            self.init(client: client)
        }

        init(client: APIClient) {
            users = UserService(client: client)
        }
    }

    static let ada = User(id: "u1", name: "Ada", email: "ada@example.com", avatarURL: URL(string: "https://cdn.example.com/ada.png"),
                          createdAt: 1_700_000_000, updatedAt: 1_700_000_100)

    // MARK: - Snippets

    @Test("a request struct carries its response type; path values are one encoded segment")
    func getUser() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/users/{id}", .json(#"{"id": "u1", "name": "Ada", "email": "ada@example.com", "avatar_url": "https://cdn.example.com/ada.png", "created_at": 1700000000, "updated_at": 1700000100}"#))
        let client = MyServiceClient(baseURL: URL(string: "https://api.example.com")!, apiKey: "k-1", transport: stub)

        let user = try await client.users.getUser(id: "u1")
        _ = try await client.users.getUser(id: "../admin?x=1")

        #expect(user == Self.ada)
        #expect(stub.requests.map(\.target) == ["/v1/users/u1", "/v1/users/..%2Fadmin%3Fx%3D1"])
        #expect(stub.requests.allSatisfy { $0.headers[HTTPField.Name("X-API-Key")!] == "k-1" })
    }

    @Test("List users sends correct parameters")
    func listUsers() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/users", .json(Page<User>(page: 2, results: [], totalPages: 2, totalResults: 0)))
        let client = MyServiceClient(baseURL: URL(string: "https://api.example.com")!, apiKey: "k-1", transport: stub)

        _ = try await client.users.listUsers(page: 2, search: "swift")

        let sent = try #require(stub.requests.last)
        #expect(sent.path == "/v1/users")
        #expect(sent.query == "page=2&per_page=20&q=swift")
        #expect(sent.headers[HTTPField.Name("X-API-Key")!] == "k-1")
    }

    @Test("an empty search is left out, as the original did")
    func emptySearch() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/users", .json(Page<User>(page: 1, results: [Self.ada], totalPages: 1, totalResults: 1)))
        let service = UserService(client: APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                                                    transport: stub))

        let page = try await service.listUsers(search: "")

        #expect(page.results == [Self.ada])
        #expect(stub.requests.last?.query == "page=1&per_page=20")
    }

    @Test("every page: pages(_:) follows page numbers until total_pages")
    func allPages() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/users") { request in
            let page = Int(request.queryItems.first { $0.name == "page" }?.value ?? "1") ?? 1
            return .json(Page<User>(page: page, results: [Self.ada], totalPages: 3, totalResults: 3))
        }
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub)

        var users: [User] = []
        for try await page in client.pages(ListUsersRequest(page: 1, perPage: 50, search: nil)) {
            users += page.results
        }

        #expect(users.count == 3)
        #expect(stub.requests.map { $0.queryItems.first { $0.name == "page" }?.value } == ["1", "2", "3"])
        #expect(stub.requests.allSatisfy { $0.queryItems.contains(URLQueryItem(name: "per_page", value: "50")) })
    }

    @Test("integration tests: record the real API once, replay it offline")
    func recordAndReplay() async throws {
        let liveTransport = StubTransport()      // stands in for URLSessionTransport() talking to the real API
        liveTransport.on(.get, "/v1/users", .json(Page<User>(page: 1, results: [Self.ada], totalPages: 1, totalResults: 1)))
        let fixtures = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cassettes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: fixtures) }

        let cassette = fixtures.appendingPathComponent("users-api.json")

        func makeTransport(record: Bool) throws -> any Transport {
            if record { return RecordingTransport(liveTransport, file: cassette) }
            return try ReplayTransport(file: cassette)
        }

        for record in [true, false] {
            let client = MyServiceClient(baseURL: URL(string: "https://api.example.com")!, apiKey: "key-0123456789",
                                         transport: try makeTransport(record: record))
            let page = try await client.users.listUsers(page: 1)
            #expect(page.results == [Self.ada])
        }

        #expect(liveTransport.requests.count == 1)                                   // the replay never reached the API
        #expect(try !String(contentsOf: cassette, encoding: .utf8).contains("key-0123456789"))   // the key is redacted
    }

    /// The seed's spelling of a request with a body: `var body: Data?`, JSON bytes the caller
    /// encoded, no header of its own.
    struct CreateUserRequest: APIRequest {
        typealias Response = Data
        let name: String
        var path: RequestPath { "/v1/users" }
        var method: HTTPRequest.Method { .post }
        var body: Data? { try? JSONEncoder().encode(["name": name]) }
    }

    @Test("a Data body never goes out untyped: application/octet-stream by default, the configuration's raw-body type when a port sets it, the request's own first")
    func dataBodyHasAContentType() async throws {
        let stub = StubTransport()
        stub.on(.post, "/v1/users", .status(201))
        let plain = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub)
        _ = try await plain.send(CreateUserRequest(name: "ada"))
        #expect(stub.requests.last?.headers[.contentType] == "application/octet-stream")

        // The seed's server reads JSON: the port says so once, for every raw body.
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.rawBodyContentType = "application/json"
        let json = APIClient(configuration: configuration, transport: stub)
        _ = try await json.send(CreateUserRequest(name: "ada"))
        #expect(stub.requests.last?.headers[.contentType] == "application/json")
        #expect(stub.requests.last?.bodyText == #"{"name":"ada"}"#)

        // A type the request or the defaults declare wins; `nil` sends none, as asked.
        _ = try await json.send(Request<Data>(method: .post, path: "/v1/users", headers: [.contentType: "text/csv"], body: .stream(.init(Data("a,b".utf8)))))
        #expect(stub.requests.last?.headers[.contentType] == "text/csv")
        configuration.rawBodyContentType = nil
        _ = try await APIClient(configuration: configuration, transport: stub).send(CreateUserRequest(name: "ada"))
        #expect(stub.requests.last?.headers[.contentType] == nil)
    }
}
