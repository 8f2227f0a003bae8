import Courier
import CourierMacros
import CourierTesting
import Foundation
import Testing

@Suite("Generated services: paths")
struct ServicePathTests {
    @Test("a path parameter is one percent-encoded segment, whatever it holds")
    func hostileValuesStayInOneSegment() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/files/*", .text("ok"))

        _ = try await library.text(name: "../admin")
        _ = try await library.text(name: "a/b?c#d")
        _ = try await library.text(name: "50% off & more")

        #expect(stub.requests.map(\.target) == [
            "/v1/files/..%2Fadmin",
            "/v1/files/a%2Fb%3Fc%23d",
            "/v1/files/50%25%20off%20%26%20more",
        ])
    }

    @Test("a parameter named body that the path, the query or a header sends is sent there, on a GET")
    func parameterNamedBody() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/notes/*", .text("one"))
        stub.on(.get, "/notes", .text("all"))

        #expect(try await library.note(body: "a b") == "one")
        #expect(try await library.notes(body: "x") == "all")
        #expect(try await library.notesWithHeader(body: "y") == "all")

        #expect(stub.requests.map(\.target) == ["/v1/notes/a%20b", "/v1/notes?body=x", "/v1/notes"])
        #expect(stub.requests.last?.headers[.init("X-Body")!] == "y")
        #expect(stub.requests.allSatisfy { $0.body.isEmpty })
    }

    @Test("a keyword as a parameter's only name (search(for:)) is sent under it (path, query, form field); the mock records it")
    func keywordNames() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/notes/*", .text("one"))
        stub.on(.post, "/settings", .status(204))
        #expect(try await library.search(default: "a", for: "b", in: 3) == "one")
        try await library.save(default: false, in: "x")
        #expect(stub.requests.first?.target == "/v1/notes/a?for=b&in=3")
        #expect(stub.requests.last?.bodyText == "default=false&in=x")

        // The mock's members are named after the labels, without backticks.
        let mock = LibraryServiceMock()
        mock.saveDefaultInResult = .success(())
        mock.saveDefaultResult = .success(())
        try await mock.save(default: true, in: "y")
        try await mock.save(default: true)
        #expect(mock.saveDefaultInCalls.map(\.in) == ["y"])
        #expect(mock.saveDefaultCallCount == 1)
        mock.searchDefaultForInResult = .success("s")
        #expect(try await mock.search(default: "a", for: "b", in: nil) == "s")
        #expect(mock.searchDefaultForInCalls.first?.for == "b")
    }

    @Test("a parameter written with backticks is sent under its name, without them (form field, path, query)")
    func backtickedNames() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.post, "/settings", .status(204))
        stub.on(.get, "/notes/*", .text("one"))
        try await library.save(default: true)
        #expect(try await library.scoped(default: "a", in: "b") == "one")
        #expect(stub.requests.first?.bodyText == "default=true")
        #expect(stub.requests.last?.target == "/v1/notes/a?in=b")
    }

    @Test("a dot-segment value is refused before anything is sent")
    func dotSegmentIsRefused() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/files/*", .text("ok"))

        await #expect(throws: APIError.self) { _ = try await library.text(name: "..") }
        #expect(stub.requests.isEmpty)
    }

    @Test("an empty value is refused before anything is sent; nil still uses the default")
    func emptyValueIsRefused() async throws {
        let postsStub = StubTransport()
        postsStub.on(.get, "/authors/*", .json(Author(name: "x")))
        let posts = PostsService(baseURL: baseURL, transport: postsStub)
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/files/*", .text("ok"))

        let error = await #expect(throws: APIError.self) { _ = try await library.text(name: "") }
        #expect(error.map { "\($0)" }?.contains("'name'") == true)
        await #expect(throws: APIError.self) { _ = try await posts.author(name: "") }
        _ = try await posts.author(name: nil)

        #expect(stub.requests.isEmpty)
        #expect(postsStub.requests.map(\.target) == ["/v1/authors/John%20Smith"])
    }

    @Test("nil uses the template's default, quoted or not")
    func defaults() async throws {
        let postsStub = StubTransport()
        postsStub.on(.get, "/authors/*", .json(Author(name: "x")))
        let posts = PostsService(baseURL: baseURL, transport: postsStub)
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/count/*", .json("1"))

        _ = try await posts.author(name: nil)
        _ = try await posts.author(name: "Ada Lovelace")
        _ = try await library.count(id: nil)
        _ = try await library.count(id: 9)

        #expect(postsStub.requests.map(\.target) == ["/v1/authors/John%20Smith", "/v1/authors/Ada%20Lovelace"])
        #expect(stub.requests.map(\.target) == ["/v1/count/3", "/v1/count/9"])
    }

    @Test("{+rest} inserts a sub-path on purpose, still refusing dot-segments")
    func rawSubPath() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/raw/**", .data(Data([1])))

        _ = try await library.raw(rest: "a/b c")
        await #expect(throws: APIError.self) { _ = try await library.raw(rest: "a/../b") }

        #expect(stub.requests.map(\.target) == ["/v1/raw/a/b%20c"])
    }

    @Test("the operation name is Protocol.method(labels:)")
    func operationName() async throws {
        let (library, stub, recorder) = makeLibrary()
        stub.on(.get, "/files/*", .text("ok"))

        _ = try await library.text(name: "a")

        #expect(stub.requests.last?.operationName == "Library.text(name:)")
        #expect(recorder.last?.operationName == "Library.text(name:)")
    }
}

