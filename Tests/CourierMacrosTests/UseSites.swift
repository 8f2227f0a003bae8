// Compile-only: real use sites of the macros, the examples of Snowdrop's README among them.
// If this file compiles, the expansions type-check against the runtime helper.
import CourierMacros
import Foundation

struct Post: Codable, Sendable, Equatable {
    var id: Int
    var title: String
}

struct Author: Codable, Sendable, Equatable {
    var name: String
}

struct UserInfo: Codable, Sendable, Equatable {
    var firstName: String
    var lastName: String
}

struct Credentials: Codable, Sendable {
    var username: String
    var password: String
}

enum Sort: String, Sendable {
    case newest, oldest
}

// MARK: Snowdrop's README examples

@Service @Mockable
protocol MyEndpoint {
    @GET(url: "/posts")
    @Headers(["X-DeviceID": "testSim001"])
    func getAllPosts() async throws -> [Post]

    @GET(url: "/posts/{id}")
    func getPost(id: Int) async throws -> Post

    @POST(url: "/posts")
    @Body("model")
    func addPost(model: Post) async throws -> Data

    @FileUpload
    @Body("image")
    @POST(url: "/uploadAvatar/")
    func uploadImage(_ image: Data) async throws -> Data

    @GET(url: "/authors/{id}")
    @QueryParams(["author"])
    func getPost(id: Int, author: String) async throws -> Post

    @GET(url: #"/authors/{name="John Smith"}"#)
    func author(name: String?) async throws -> Author

    @GET(url: "/users/{id}/info")
    func getUserInfo(id: Int) async throws -> UserInfo
}

enum Naming {
    /// A protocol whose name ends in `Service`: the client is `MyEndpointServiceImpl`.
    @Service @Mockable
    protocol MyEndpointService {
        @GET("/posts")
        func getAllPosts() async throws -> [Post]
    }
}

@Service
@Mockable
protocol Endpoint {
    @GET("/path")
    func getPosts() async throws -> [Post]
}

// MARK: DESIGN.md

@Service @Mockable
protocol Posts {
    @GET("/posts") @Headers(["X-DeviceID": "sim-1"])
    func all() async throws -> [Post]
    @GET("/posts/{id}") @QueryParams(["author"])
    func post(id: Int, author: String) async throws -> Post
    @GET("/authors/{name=\"John Smith\"}")
    func author(name: String?) async throws -> Author
    @POST("/posts") @Body("model")
    func add(model: Post) async throws -> Post
    @FileUpload @Body("image") @POST("/avatar")
    func upload(_ image: Data) async throws -> Data
}

// MARK: Everything else

@Service @Mockable
protocol Library {
    @GET("/files/{name}")
    func text(name: String) async throws -> String

    @HEAD("/files/{name}")
    func probe(name: String) async throws -> Response<Void>

    @DELETE("/posts/{id}")
    func remove(id: Int) async throws

    @PUT("/posts/{id}")
    func replace(id: Int, body: Post) async throws -> Response<Post>

    @PATCH("/posts/{id}") @Header("X-Trace", "traceID") @Header("If-Match", "etag")
    func rename(id: Int, traceID: String, etag: String?, body: Post) async throws -> Post

    @HTTP(method: "OPTIONS", path: "/posts")
    func allowed() async throws -> Response<Data>

    @GET("/search") @QueryParams(["q", "sort", "tags", "page"])
    func search(q: String, sort: Sort, tags: [String], page: Int?) async throws -> [Post]

    @GET("/raw/{+rest}")
    func raw(rest: String) async throws -> Data

    @POST("/oauth/token") @FormURLEncoded @Options(authentication: .none, includeBaseParameters: false)
    func token(grant_type: String, username: String, password: String, scope: String?) async throws -> String

    @POST("/login") @FormURLEncoded @Body("credentials")
    func login(credentials: Credentials) async throws -> Data

    @POST("/upload/{folder}") @FileUpload @Body("file") @QueryParams(["overwrite"])
    func store(folder: String, file: URL, caption: String?, overwrite: Bool) async throws -> Response<String>

    @POST("/payments") @Options(timeout: .seconds(5), retry: .always)
    func pay(body: Post) async throws -> Post

    @GET("/count/{id=3}")
    func count(id: Int?) async throws -> Int

    @GET("/articles") @Options(cachePolicy: .returnCacheDontLoad)
    func cachedArticles() async throws -> [Post]

    @POST("/blobs")
    func putBlob(body: Data) async throws

    @POST("/streams")
    func putBody(body: RequestBody) async throws

    /// A parameter named `body` that the path, the query or a header sends is not the body.
    @GET("/notes/{body}")
    func note(body: String) async throws -> String

    @GET("/notes") @QueryParams(["body"])
    func notes(body: String) async throws -> String

    @GET("/notes") @Header("X-Body", "body")
    func notesWithHeader(body: String) async throws -> String

    /// Parameters written with backticks are sent under their names.
    @POST("/settings") @FormURLEncoded
    func save(`default`: Bool) async throws

    @GET("/notes/{default}") @QueryParams(["in"])
    func scoped(`default`: String, `in`: String) async throws -> String

    /// A keyword as the one name of a parameter (a label, as `search(for:)` reads): inside the
    /// generated method it is written with backticks.
    @GET("/notes/{default}") @QueryParams(["for", "in"])
    func search(default: String, for: String, in: Int?) async throws -> String

    @POST("/settings") @FormURLEncoded
    func save(default: Bool, in: String) async throws
}

/// A mock-only protocol (no HTTP attributes needed).
@Mockable
protocol Clock {
    func now() async throws -> Date
    func sleep(seconds: Int) async throws
}

enum UseSites {
    static func examples(transport: any Transport) async throws {
        let url = URL(string: "https://my-endpoint.example")!
        let service = MyEndpointService(baseURL: url, transport: transport)
        _ = try await service.getPost(id: 7)
        _ = try await service.getPost(id: 7, _queryItems: [URLQueryItem(name: "author", value: "John Smith")])
        _ = try await service.getPost(id: 7, author: "John Smith")
        let payload = PayloadDescription(name: "avatar", fileName: "filename.jpeg", mimeType: "image/jpeg")
        _ = try await service.uploadImage(Data(), _payloadDescription: payload)
        _ = MyEndpointService(baseURL: url, decoder: JSONDecoder(), verbose: true, transport: transport)
        _ = Naming.MyEndpointServiceImpl(client: APIClient(configuration: .init(baseURL: url), transport: transport))

        _ = Naming.MyEndpointServiceMock()
        let mock = EndpointServiceMock()
        mock.getPostsResult = .success([])
        _ = try await mock.getPosts()

        let posts: any Posts = PostsService(baseURL: url, transport: transport)
        _ = try await posts.post(id: 7, author: "J")
        let library = LibraryServiceMock()
        library.removeResult = .success(())
        try await library.remove(id: 1)
        let clock = ClockServiceMock()
        clock.nowHandler = { _ in Date() }
    }
}
