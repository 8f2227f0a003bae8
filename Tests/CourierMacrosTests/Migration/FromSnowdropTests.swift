// The Courier column of the article "Migrating from Snowdrop" (MigratingFromSnowdrop.md): every
// Courier snippet of the article, run against a StubTransport. Keep the two in step.
import CourierMacros
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Migrating from Snowdrop")
struct FromSnowdropTests {
    struct Post: Codable, Sendable, Equatable {
        var id: Int
        var title: String
    }

    struct UserInfo: Codable, Sendable, Equatable {
        var firstName: String
        var lastName: String
    }

    @Service @Mockable
    protocol MyEndpoint {
        @GET(url: "/posts")
        @Headers(["X-DeviceID": "testSim001"])
        func getAllPosts() async throws -> [Post]

        @GET(url: "/posts/{id}")
        func getPost(id: Int) async throws -> Post

        @GET(url: "/posts/{id}")
        @QueryParams(["author"])
        func getPost(id: Int, author: String) async throws -> Post

        @POST(url: "/posts")
        @Body("model")
        func addPost(model: Post) async throws -> Data

        @FileUpload
        @Body("image")
        @POST(url: "/uploadAvatar/")
        func uploadImage(_ image: Data) async throws -> Data

        @GET(url: #"/authors/{name="John Smith"}"#)
        func author(name: String?) async throws -> Data

        @GET(url: "/users/{id}/info")
        func getUserInfo(id: Int) async throws -> UserInfo

        @GET(url: "/my/path/{id}/content")
        func content(id: String) async throws -> Data

        @GET(url: "/my/path/{id}/content/comments")
        func comments(id: String) async throws -> Data
    }

    @Service @Mockable
    protocol Endpoint {
        @GET("/path")
        func getPosts() async throws -> [Post]
    }

    /// Test scaffolding: what the snippets hand to the app.
    final class Screen: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var _events: [String] = []
        var events: [String] { lock.lock(); defer { lock.unlock() }; return _events }
        func record(_ event: String) { lock.lock(); _events.append(event); lock.unlock() }
    }

    let transport = StubTransport()
    let baseURL = URL(string: "https://my-endpoint.example")!
    let screen = Screen()
    func showNotFound() { screen.record("not found") }
    func showError(_ text: String) { screen.record("error: " + text) }

    // MARK: - Snippets

    @Test("MyEndpointService(baseUrl:) → MyEndpointService(baseURL:transport:)")
    func declareAndCall() async throws {
        transport.on(.get, "/posts/{id}", .json(Post(id: 7, title: "Hi")))
        transport.on(.get, "/posts", .json([Post(id: 7, title: "Hi")]))

        let service = MyEndpointService(baseURL: URL(string: "https://my-endpoint.example")!, transport: transport)
        let post = try await service.getPost(id: 7, author: "John Smith")
        let all = try await service.getAllPosts()

        #expect(post == Post(id: 7, title: "Hi"))
        #expect(all.count == 1)
        #expect(transport.requests.first?.url == "https://my-endpoint.example/posts/7?author=John%20Smith")
        #expect(transport.requests.last?.headers[HTTPField.Name("X-DeviceID")!] == "testSim001")
    }

    @Test("one client shared by several services: init(client:)")
    func sharedClient() async throws {
        transport.on(.get, "/path", .json([Post(id: 1, title: "a")]))
        transport.on(.get, "/posts", .json([Post]()))

        let client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: transport,
                               middleware: [RetryMiddleware()])
        let posts = MyEndpointService(client: client)
        let endpoint = EndpointService(client: client)

        _ = try await posts.getAllPosts()
        _ = try await endpoint.getPosts()
        #expect(transport.requests.map(\.path) == ["/posts", "/path"])
        #expect(transport.requests.map(\.operationName) == ["MyEndpoint.getAllPosts()", "Endpoint.getPosts()"])
    }

    @Test("_queryItems: [QueryItem] → _queryItems: [URLQueryItem]")
    func extraQueryItems() async throws {
        transport.on(.get, "/posts/{id}", .json(Post(id: 7, title: "Hi")))
        let service = MyEndpointService(baseURL: baseURL, transport: transport)
        let authorName = "John Smith"

        let post = try await service.getPost(id: 7, _queryItems: [URLQueryItem(name: "author", value: authorName)])

        #expect(post.id == 7)
        #expect(transport.requests.last?.target == "/posts/7?author=John%20Smith")
    }

    @Test("a path default {name=\"John Smith\"} is used when the argument is nil")
    func pathDefaults() async throws {
        transport.on(.get, "/authors/{name}", .data(Data("ok".utf8)))
        let service = MyEndpointService(baseURL: baseURL, transport: transport)

        _ = try await service.author(name: nil)
        _ = try await service.author(name: "Ada")

        #expect(transport.requests.map(\.path) == ["/authors/John%20Smith", "/authors/Ada"])
    }

    @Test("@FileUpload with _payloadDescription")
    func fileUpload() async throws {
        transport.on(.post, "/uploadAvatar/", .data(Data("ok".utf8)))
        let service = MyEndpointService(baseURL: baseURL, transport: transport)
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10])

        let payload = PayloadDescription(name: "avatar", fileName: "filename.jpeg", mimeType: "image/jpeg")
        _ = try await service.uploadImage(jpeg, _payloadDescription: payload)

        let sent = try #require(transport.requests.last)
        #expect(sent.headers[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(sent.bodyText.contains(#"name="avatar"; filename="filename.jpeg""#))
        #expect(sent.bodyText.contains("Content-Type: image/jpeg"))
    }

    @Test("addBeforeSendingBlock / addOnResponseBlock → InterceptorMiddleware at init")
    func interceptors() async throws {
        transport.on(.get, "/my/path/{id}/content", .data(Data("raw".utf8)))
        transport.on(.get, "/posts", .json([Post(id: 1, title: "a")]))

        var interceptors = InterceptorMiddleware(selection: .everyMatch)    // Snowdrop's rule: every matching block runs
        try interceptors.beforeSend(for: .regex(matchingWholePath: "my/path/[0-9]{1,}/content")) { request, _ in
            var request = request
            request.headerFields[HTTPField.Name("X-Device")!] = "sim-1"
            return request
        }
        interceptors.onResponseData { data, response, _ in
            data                                         // or replace the body for every request
        }
        let service = MyEndpointService(baseURL: baseURL, transport: transport, middleware: [interceptors])

        _ = try await service.content(id: "12")
        _ = try await service.getAllPosts()

        #expect(transport.requests.first?.headers[HTTPField.Name("X-Device")!] == "sim-1")
        #expect(transport.requests.last?.headers[HTTPField.Name("X-Device")!] == nil)
    }

    @Test("Snowdrop's pattern is found anywhere in the URL; Courier's regex matches the whole path")
    func wholePathMatching() async throws {
        transport.on(.get, "/my/path/**", .data(Data("raw".utf8)))

        var interceptors = InterceptorMiddleware()
        try interceptors.beforeSend(for: .regex(matchingWholePath: "my/path/[0-9]{1,}/content")) { request, _ in
            var request = request
            request.headerFields[HTTPField.Name("X-Device")!] = "sim-1"
            return request
        }
        let service = MyEndpointService(baseURL: baseURL, transport: transport, middleware: [interceptors])

        _ = try await service.content(id: "12")                                                   // matches
        _ = try await service.content(id: "12", _queryItems: [URLQueryItem(name: "page", value: "2")])  // matches: the query is not part of the path
        _ = try await service.comments(id: "12")                                                  // does not: Snowdrop's block would run

        #expect(transport.requests.map { $0.headers[HTTPField.Name("X-Device")!] } == ["sim-1", "sim-1", nil])
        #expect(transport.requests.map(\.target) == ["/my/path/12/content", "/my/path/12/content?page=2", "/my/path/12/content/comments"])
    }

    @Test("Snowdrop's open-ended match, said in the pattern; path patterns without a regex")
    func openEndedPatterns() async throws {
        let openEnded = try InterceptorMiddleware.PathMatcher.regex(matchingWholePath: "my/path/[0-9]{1,}/content(/.*)?")
        let pattern: InterceptorMiddleware.PathMatcher = "/my/path/*/content/**"
        for matcher in [openEnded, pattern] {
            transport.reset()
            transport.on(.get, "/my/path/**", .data(Data("raw".utf8)))
            var interceptors = InterceptorMiddleware()
            interceptors.beforeSend(for: matcher) { request, _ in
                var request = request
                request.headerFields[HTTPField.Name("X-Device")!] = "sim-1"
                return request
            }
            let service = MyEndpointService(baseURL: baseURL, transport: transport, middleware: [interceptors])

            _ = try await service.content(id: "12")
            _ = try await service.comments(id: "12")

            #expect(transport.requests.map { $0.headers[HTTPField.Name("X-Device")!] } == ["sim-1", "sim-1"], "\(matcher)")
        }
    }

    @Test("@Mockable: EndpointServiceMock(baseUrl:) → EndpointServiceMock()")
    func mocks() async throws {
        let mock = EndpointServiceMock()
        mock.getPostsResult = .success([])

        let result = try await mock.getPosts()

        #expect(result.isEmpty)
        #expect(mock.getPostsCallCount == 1)
    }

    @Test("testJSONDictionary → StubTransport answering from fixture files")
    func jsonInjection() async throws {
        let fixtures = FileManager.default.temporaryDirectory.appendingPathComponent("courier-snowdrop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: fixtures) }
        try Data(#"{"firstName": "JSON", "lastName": "Bourne"}"#.utf8).write(to: fixtures.appendingPathComponent("MyJSONMock.json"))

        let stub = StubTransport()
        stub.on(.get, "/users/123/info", .file(fixtures.appendingPathComponent("MyJSONMock.json")))
        let service = MyEndpointService(baseURL: baseURL, transport: stub)

        let result = try await service.getUserInfo(id: 123)

        #expect(result.firstName == "JSON")
        #expect(result.lastName == "Bourne")
    }

    @Test("SnowdropError.details.statusCode → APIError.statusCode")
    func errors() async throws {
        transport.on(.get, "/posts/404", .status(404, message: "No such post"))
        transport.on(.get, "/posts/500", .status(500))
        let service = MyEndpointService(baseURL: baseURL, transport: transport)

        for id in [404, 500] {
            do {
                _ = try await service.getPost(id: id)
            } catch let error as APIError where error.statusCode == 404 {
                showNotFound()
            } catch let error as APIError {
                showError(error.description)
            }
        }

        #expect(screen.events.first == "not found")
        #expect(screen.events.last?.hasPrefix("error: HTTP 500 for GET https://my-endpoint.example/posts/500") == true)
    }
}
