import Courier
import CourierMacros
import CourierTesting
import Foundation
import Testing

@Suite("Generated services: bodies")
struct ServiceBodyTests {
    @Test("@Body(\"model\") and a parameter named body are sent as JSON")
    func jsonBodies() async throws {
        let stub = StubTransport()
        stub.on(.post, "/posts", .json(Post(id: 2, title: "new")))
        let posts = PostsService(baseURL: baseURL, transport: stub)
        let (library, libraryStub, _) = makeLibrary()
        libraryStub.on(.put, "/posts/*", .json(Post(id: 3, title: "put")))

        let created = try await posts.add(model: Post(id: 0, title: "draft"))
        _ = try await library.replace(id: 3, body: Post(id: 3, title: "put"))

        #expect(created == Post(id: 2, title: "new"))
        let sent = try #require(stub.requests.first)
        #expect(sent.method == .post)
        #expect(sent.headers[.contentType] == "application/json")
        #expect(try sent.decodedBody(Post.self) == Post(id: 0, title: "draft"))
        #expect(try libraryStub.requests.first?.decodedBody(Post.self) == Post(id: 3, title: "put"))
    }

    @Test("@FormURLEncoded sends unbound parameters as fields, leaving nil out")
    func formFields() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.post, "/oauth/token", .text("token-1"))

        let token = try await library.token(grant_type: "password", username: "a&b", password: "p w=", scope: nil)

        #expect(token == "token-1")
        let sent = try #require(stub.requests.first)
        #expect(sent.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true)
        #expect(sent.bodyText == "grant_type=password&username=a%26b&password=p+w%3D"
            || sent.bodyText == "grant_type=password&username=a%26b&password=p%20w%3D")
    }

    @Test("@FormURLEncoded with a body sends its properties in key order")
    func formBody() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.post, "/login", .data(Data("ok".utf8)))

        _ = try await library.login(credentials: Credentials(username: "ada", password: "secret"))

        #expect(stub.requests.first?.bodyText == "password=secret&username=ada")
    }

    @Test("@FileUpload infers the part from the bytes when no description is given")
    func multipartInferred() async throws {
        let stub = StubTransport()
        stub.on(.post, "/uploadAvatar/", .data(Data("stored".utf8)))
        let service = MyEndpointService(baseURL: baseURL, transport: stub)

        let reply = try await service.uploadImage(jpegBytes)

        #expect(reply == Data("stored".utf8))
        let sent = try #require(stub.requests.first)
        #expect(sent.headers[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
        let text = String(decoding: sent.body, as: UTF8.self)
        #expect(text.contains(#"Content-Disposition: form-data; name="image"; filename="image.jpg""#))
        #expect(text.contains("Content-Type: image/jpeg"))
    }

    @Test("@FileUpload uses the caller's PayloadDescription")
    func multipartDescribed() async throws {
        let stub = StubTransport()
        stub.on(.post, "/uploadAvatar/", .data(Data()))
        let service = MyEndpointService(baseURL: baseURL, transport: stub)
        let payload = PayloadDescription(name: "avatar", fileName: "filename.jpeg", mimeType: "image/jpeg")

        _ = try await service.uploadImage(pngBytes, _payloadDescription: payload)

        let text = String(decoding: try #require(stub.requests.first).body, as: UTF8.self)
        #expect(text.contains(#"name="avatar"; filename="filename.jpeg""#))
        #expect(text.contains("Content-Type: image/jpeg"))
    }

    @Test("@FileUpload streams a file URL, sends other parameters as fields and @QueryParams as query")
    func multipartFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-macros-\(UUID().uuidString).png")
        try pngBytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (library, stub, _) = makeLibrary()
        stub.on(.post, "/upload/*", .text("saved"))

        let response = try await library.store(folder: "my docs", file: file, caption: "Hi", overwrite: true)

        #expect(response.value == "saved")
        let sent = try #require(stub.requests.first)
        #expect(sent.target == "/v1/upload/my%20docs?overwrite=true")
        let text = sent.bodyText
        #expect(text.contains(#"name="file"; filename="\#(file.lastPathComponent)""#))
        #expect(text.contains("Content-Type: image/png"))
        #expect(text.contains(#"name="caption""# + "\r\n\r\nHi\r\n"))
    }

    @Test("a missing upload file fails the call before anything is sent")
    func missingFile() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.post, "/upload/*", .text("saved"))

        await #expect(throws: APIError.self) {
            _ = try await library.store(folder: "x", file: URL(fileURLWithPath: "/nonexistent/\(UUID()).png"), caption: nil, overwrite: false)
        }
        #expect(stub.requests.isEmpty)
    }

    @Test("a Data body is sent as bytes with a sniffed type; a RequestBody as given")
    func rawBodies() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.post, "/blobs", .status(204))
        stub.on(.post, "/streams", .status(204))

        try await library.putBlob(body: pngBytes)
        try await library.putBody(body: .data(Data("a,b".utf8), contentType: "text/csv"))

        #expect(stub.requests.first?.body == pngBytes)
        #expect(stub.requests.first?.headers[.contentType] == "image/png")
        #expect(stub.requests.last?.bodyText == "a,b")
        #expect(stub.requests.last?.headers[.contentType] == "text/csv")
    }

    @Test("a Data body whose bytes name no format keeps the configured Content-Type, as a hand-written request's Data body does")
    func unrecognisedDataKeepsTheDefaultType() async throws {
        let stub = StubTransport()
        stub.on(.post, "/blobs", .status(204))
        let configuration = APIConfiguration(baseURL: baseURL, defaultHeaders: [.contentType: "application/json"])
        let library = LibraryService(client: APIClient(configuration: configuration, transport: stub))

        try await library.putBlob(body: Data(#"{"a":1}"#.utf8))
        try await library.putBlob(body: Data(repeating: 0x01, count: 8_000))
        try await library.putBlob(body: pngBytes)

        #expect(stub.requests.map { $0.headers[.contentType] } == ["application/json", "application/json", "image/png"])
    }
}

/// Optional bodies: `nil` sends none; `Data?` is sent as bytes, like `Data`.
@Service
protocol OptionalBodies {
    @POST("/raw")
    func upload(body: Data?) async throws -> Data
    @POST("/posts")
    func save(body: Post?) async throws -> Data
}

@Suite("Generated services: optional bodies")
struct ServiceOptionalBodyTests {
    @Test("a Data? body is sent as its bytes, a nil one as no body; a nil Encodable? sends no body, not null")
    func optionalBodies() async throws {
        let stub = StubTransport()
        stub.on(.post, "/raw", .data(Data()))
        stub.on(.post, "/posts", .data(Data()))
        let service = OptionalBodiesService(baseURL: baseURL, transport: stub)
        _ = try await service.upload(body: Data([0, 1, 2]))
        _ = try await service.upload(body: nil)
        _ = try await service.save(body: nil)
        _ = try await service.save(body: Post(id: 1, title: "a"))
        let sent = stub.requests
        #expect(sent.count == 4)
        #expect(sent[0].body == Data([0, 1, 2]))
        #expect(sent[0].headers[.contentType] != "application/json")
        #expect(sent[1].body.isEmpty)
        #expect(sent[2].body.isEmpty)
        #expect(sent[2].headers[.contentType] == nil)
        #expect(try sent[3].decodedBody(Post.self) == Post(id: 1, title: "a"))
    }
}

/// More than one piece of binary in one upload, and binary where a form cannot carry it.
@Service
protocol Uploads {
    @POST("/upload") @FileUpload @Body("image")
    func upload(image: Data, thumb: Data, caption: String, callback: URL) async throws -> Data
    @POST("/form") @FormURLEncoded
    func form(name: String, blob: Data) async throws -> Data
    @POST("/upload") @FileUpload @Body("image")
    func uploadMany(image: Data, extras: [Data], other: URL?) async throws -> Data
}

@Suite("Generated services: binary parameters")
struct ServiceBinaryParameterTests {
    @Test("another Data parameter of an upload is a file part of its bytes, not the text '<N> bytes'; a web URL is a text field")
    func secondFilePart() async throws {
        let stub = StubTransport()
        stub.on(.post, "/upload", .data(Data()))
        let service = UploadsService(baseURL: baseURL, transport: stub)
        _ = try await service.upload(image: jpegBytes, thumb: Data([0xFF, 0xD8, 0xFF, 0x01, 0x02]), caption: "hi",
                                     callback: URL(string: "https://example.com/done")!)
        let text = String(decoding: try #require(stub.requests.first).body, as: UTF8.self)
        #expect(text.contains(#"name="thumb"; filename="#))
        #expect(!text.contains("5 bytes"))
        #expect(text.contains(#"name="caption""#))
        #expect(text.contains("https://example.com/done"))
    }

    @Test("a Data parameter of a URL-encoded form fails the request loudly instead of sending '<N> bytes'")
    func dataInForm() async throws {
        let stub = StubTransport()
        stub.on(.post, "/form", .data(Data()))
        let service = UploadsService(baseURL: baseURL, transport: stub)
        await #expect(throws: APIError.self) { try await service.form(name: "a", blob: Data([1, 2, 3])) }
        #expect(stub.requests.isEmpty)
    }

    @Test("a [Data] parameter of an upload is one file part per element; a file URL besides the upload's file fails the call, never reading that file")
    func arraysAndFileURLs() async throws {
        let stub = StubTransport()
        stub.on(.post, "/upload", .data(Data()))
        let service = UploadsService(baseURL: baseURL, transport: stub)
        _ = try await service.uploadMany(image: jpegBytes, extras: [Data([1, 2]), Data([3, 4, 5])], other: nil)
        let text = String(decoding: try #require(stub.requests.first).body, as: UTF8.self)
        #expect(text.components(separatedBy: #"name="extras"; filename="#).count == 3)
        #expect(!text.contains("2 bytes") && !text.contains("3 bytes"))
        let local = URL(fileURLWithPath: "/etc/hostname")
        await #expect(throws: APIError.self) { try await service.uploadMany(image: jpegBytes, extras: [], other: local) }
        #expect(stub.requests.count == 1)
    }
}

/// A form body whose keys and dates the client's encoder spells.
struct Signup: Encodable, Sendable {
    var displayName: String
    var createdAt: Date
}

@Service
protocol Signups {
    @POST("/signup") @FormURLEncoded
    func signup(body: Signup, source: String) async throws -> Data
}

@Suite("Generated services: form bodies and the client's encoder")
struct ServiceFormEncoderTests {
    @Test("a @FormURLEncoded body is flattened with the client's encoder: its key and date strategies apply, as to a JSON body; other fields keep their place")
    func clientEncoder() async throws {
        let stub = StubTransport()
        stub.on(.post, "/signup", .data(Data()))
        var configuration = APIConfiguration(baseURL: baseURL)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        configuration.encoder = encoder
        let service = SignupsService(client: APIClient(configuration: configuration, transport: stub))
        _ = try await service.signup(body: Signup(displayName: "Ada", createdAt: Date(timeIntervalSince1970: 0)), source: "web")
        #expect(try #require(stub.requests.first).bodyText == "created_at=1970-01-01T00%3A00%3A00Z&display_name=Ada&source=web")
    }
}
