import Courier
import CourierMacros
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Generated services: return types")
struct ServiceResponseTests {
    @Test("Decodable values are decoded with the client's decoder")
    func decodable() async throws {
        let stub = StubTransport()
        stub.on(.get, "/posts", .json([Post(id: 1, title: "a"), Post(id: 2, title: "b")]))
        let service = MyEndpointService(baseURL: baseURL, transport: stub)

        let posts = try await service.getAllPosts()

        #expect(posts.map(\.id) == [1, 2])
    }

    @Test("Data, String and Void return the body as bytes, as text, or not at all")
    func rawReturnTypes() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/raw/**", .data(Data([0, 1, 2])))
        stub.on(.get, "/files/*", .text("héllo"))
        stub.on(.delete, "/posts/*", .status(204))

        #expect(try await library.raw(rest: "x") == Data([0, 1, 2]))
        #expect(try await library.text(name: "a") == "héllo")
        try await library.remove(id: 4)

        #expect(stub.requests.last?.method == .delete)
        #expect(stub.requests.last?.target == "/v1/posts/4")
    }

    @Test("Data is returned as is even when the body is JSON")
    func dataIsNotDecoded() async throws {
        let stub = StubTransport()
        stub.on(.post, "/posts", .json(#"{"id":1}"#))
        let service = MyEndpointService(baseURL: baseURL, transport: stub)

        let data = try await service.addPost(model: Post(id: 1, title: "t"))

        #expect(data == Data(#"{"id":1}"#.utf8))
    }

    @Test("Response<T> carries the value with the status and headers")
    func responseWrapper() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.put, "/posts/*", StubResponse.json(Post(id: 5, title: "x"), status: 201).header(.eTag, "\"e1\""))
        stub.on(.head, "/files/*", StubResponse(status: 200, headers: [.contentLength: "42"]))

        let replaced = try await library.replace(id: 5, body: Post(id: 5, title: "x"))
        let probe = try await library.probe(name: "big.bin")

        #expect(replaced.value == Post(id: 5, title: "x"))
        #expect(replaced.statusCode == 201)
        #expect(replaced.response.headerFields[.eTag] == "\"e1\"")
        #expect(probe.statusCode == 200)
        #expect(stub.requests.last?.method == .head)
    }

    @Test("errors are Courier's: an HTTP error status, or a body that does not decode")
    func errors() async throws {
        let stub = StubTransport()
        stub.on(.get, "/posts/*", .status(404, message: "no such post"))
        stub.on(.get, "/posts", .json(#"{"not":"a list"}"#))
        let service = MyEndpointService(baseURL: baseURL, transport: stub)

        await #expect {
            _ = try await service.getPost(id: 1)
        } throws: { error in
            guard let error = error as? APIError, error.statusCode == 404 else { return false }
            return error.message == "no such post"
        }
        await #expect {
            _ = try await service.getAllPosts()
        } throws: { error in
            guard case APIError.Kind.decodingFailed = error else { return false }
            return true
        }
    }
}

@Suite("Generated services: fixture injection")
struct FixtureInjectionTests {
    /// Snowdrop's `testJSONDictionary = ["users/123/info": "MyJSONMock"]`: JSON fixture files
    /// served by path through the stub transport, so the real decoding runs.
    @Test("a service pointed at JSON fixtures by path decodes them")
    func jsonFixtures() async throws {
        let directory = try fixtureDirectory(["MyJSONMock": #"{"firstName":"JSON","lastName":"Bourne"}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let stub = StubTransport()
        stub.inject(["users/123/info": "MyJSONMock"], from: directory)
        let service = MyEndpointService(baseURL: baseURL, transport: stub)

        let info = try await service.getUserInfo(id: 123)

        #expect(info == UserInfo(firstName: "JSON", lastName: "Bourne"))
    }

    @Test("a missing fixture fails with an error naming the file")
    func missingFixture() async throws {
        let stub = StubTransport()
        stub.inject(["users/1/info": "Nope"], from: FileManager.default.temporaryDirectory)
        let service = MyEndpointService(baseURL: baseURL, transport: stub)

        await #expect {
            _ = try await service.getUserInfo(id: 1)
        } throws: { error in
            String(describing: error).contains("Nope.json")
        }
    }
}

extension StubTransport {
    /// Serves `<name>.json` from `directory` for each path (Snowdrop's "JSON injection").
    func inject(_ fixtures: [String: String], from directory: URL) {
        for (path, name) in fixtures {
            on(.get, PathPattern("/" + path), .file(directory.appendingPathComponent(name + ".json")))
        }
    }
}

/// Writes each fixture as `<name>.json` into a new temporary directory.
private func fixtureDirectory(_ files: [String: String]) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fixtures-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, json) in files {
        try Data(json.utf8).write(to: directory.appendingPathComponent(name + ".json"))
    }
    return directory
}
