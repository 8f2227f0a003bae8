import Courier
import CourierMacros
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Generated services: query, headers, options")
struct ServiceRequestTests {
    @Test("@QueryParams sends the named parameters in order; nil is left out; arrays repeat; enums send raw values")
    func queryParameters() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.get, "/search", .json("[]"))

        _ = try await library.search(q: "a b&c=d", sort: .newest, tags: ["x", "y"], page: nil)
        _ = try await library.search(q: "z", sort: .oldest, tags: [], page: 2,
                                     _queryItems: [URLQueryItem(name: "debug", value: "1")])

        let first = try #require(stub.requests.first)
        #expect(first.queryItems == [
            URLQueryItem(name: "q", value: "a b&c=d"), URLQueryItem(name: "sort", value: "newest"),
            URLQueryItem(name: "tags", value: "x"), URLQueryItem(name: "tags", value: "y"),
        ])
        #expect(first.query == "q=a%20b%26c%3Dd&sort=newest&tags=x&tags=y")
        #expect(stub.requests.last?.queryItems == [
            URLQueryItem(name: "q", value: "z"), URLQueryItem(name: "sort", value: "oldest"),
            URLQueryItem(name: "page", value: "2"), URLQueryItem(name: "debug", value: "1"),
        ])
    }

    @Test("_queryItems can be given or left out; the protocol requirement still works")
    func extraQueryItems() async throws {
        let stub = StubTransport()
        stub.on(.get, "/posts/*", .json(Post(id: 7, title: "Hi")))
        let service = MyEndpointService(baseURL: baseURL, transport: stub)
        let asProtocol: any MyEndpoint = service

        _ = try await service.getPost(id: 7, _queryItems: [URLQueryItem(name: "author", value: "John Smith")])
        _ = try await service.getPost(id: 7)
        _ = try await asProtocol.getPost(id: 7)

        #expect(stub.requests.map(\.target) == ["/v1/posts/7?author=John%20Smith", "/v1/posts/7", "/v1/posts/7"])
    }

    @Test("@Headers are sent as given, @Header sends a parameter, nil headers are left out")
    func headers() async throws {
        let stub = StubTransport()
        stub.on(.get, "/posts", .json("[]"))
        let service = MyEndpointService(baseURL: baseURL, transport: stub)
        let (library, libraryStub, _) = makeLibrary()
        libraryStub.on(.patch, "/posts/*", .json(Post(id: 1, title: "b")))

        _ = try await service.getAllPosts()
        _ = try await library.rename(id: 1, traceID: "trace-1", etag: nil, body: Post(id: 1, title: "b"))
        _ = try await library.rename(id: 1, traceID: "trace-2", etag: "\"v2\"", body: Post(id: 1, title: "b"))

        #expect(stub.requests.first?.headers[.init("X-DeviceID")!] == "testSim001")
        let first = try #require(libraryStub.requests.first)
        #expect(first.headers[.init("X-Trace")!] == "trace-1")
        #expect(first.headers[.ifMatch] == nil)
        #expect(libraryStub.requests.last?.headers[.ifMatch] == "\"v2\"")
    }

    @Test("a header value with CR or LF fails the call before anything is sent")
    func headerInjectionIsRefused() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.patch, "/posts/*", .json(Post(id: 1, title: "b")))

        await #expect {
            _ = try await library.rename(id: 1, traceID: "x\r\nX-Admin: 1", etag: nil, body: Post(id: 1, title: "b"))
        } throws: { error in
            guard case APIError.Kind.encodingFailed = error else { return false }
            return true
        }
        #expect(stub.requests.isEmpty)
    }

    @Test("@Options sets the call's RequestOptions; the operation name stays")
    func options() async throws {
        let (library, stub, recorder) = makeLibrary()
        stub.on(.post, "/payments", .json(Post(id: 1, title: "paid")))
        stub.on(.post, "/oauth/token", .text("tok"))

        _ = try await library.pay(body: Post(id: 1, title: "x"))
        let pay = try #require(recorder.last)
        #expect(pay.options.timeout == .seconds(5))
        #expect(pay.options.retry == .always)
        #expect(pay.options.authentication == .automatic)
        #expect(pay.operationName == "Library.pay(body:)")

        _ = try await library.token(grant_type: "password", username: "ada", password: "pw", scope: nil)
        let token = try #require(recorder.last)
        #expect(token.options.authentication == .none)
        #expect(token.options.includeBaseParameters == false)
        #expect(token.options.retry == .automatic)
    }

    @Test("@Options(cachePolicy:) sets a method's cache policy")
    func cachePolicyOption() async throws {
        let (library, stub, recorder) = makeLibrary()
        stub.on(.get, "/articles", .json([Post(id: 1, title: "a")]))
        _ = try await library.cachedArticles()
        #expect(try #require(recorder.last).options.cachePolicy == .returnCacheDontLoad)
    }

    @Test("a method without @Options uses the client's defaults")
    func defaultOptions() async throws {
        let (library, stub, recorder) = makeLibrary()
        stub.on(.get, "/files/*", .text("ok"))

        _ = try await library.text(name: "a")

        let context = try #require(recorder.last)
        #expect(context.options.timeout == nil)
        #expect(context.options.retry == .automatic)
        #expect(context.options.includeBaseParameters)
        #expect(context.options.cachePolicy == nil)
    }

    @Test("@HTTP(method:path:) sends any known method")
    func generalMethod() async throws {
        let (library, stub, _) = makeLibrary()
        stub.on(.options, "/posts", StubResponse(status: 204).header(.allow, "GET, POST"))

        let response = try await library.allowed()

        #expect(stub.requests.first?.method == .options)
        #expect(response.statusCode == 204)
        #expect(response.response.headerFields[.allow] == "GET, POST")
    }
}

@Suite("Generated services: middleware")
struct ServiceMiddlewareTests {
    /// Snowdrop's `addBeforeSendingBlock(for:)` / `addOnResponseBlock`, as `InterceptorMiddleware`
    /// passed to the generated init.
    @Test("interceptors passed to the generated init run, the specific one winning")
    func interceptors() async throws {
        let stub = StubTransport()
        stub.on(.get, "/posts/*", .json(Post(id: 7, title: "Hi")))
        stub.on(.get, "/posts", .json("[]"))
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend { request, _ in
            var request = request
            request.headerFields[HTTPField.Name("X-Block")!] = "general"
            return request
        }
        try interceptors.beforeSend(for: .regex(matchingWholePath: "posts/[0-9]{1,}")) { request, _ in
            var request = request
            request.headerFields[HTTPField.Name("X-Block")!] = "specific"
            return request
        }
        let service = MyEndpointService(baseURL: baseURL, transport: stub, middleware: [interceptors])

        _ = try await service.getPost(id: 7)
        _ = try await service.getAllPosts()

        #expect(stub.requests.map { $0.headers[HTTPField.Name("X-Block")!] } == ["specific", "general"])
    }
}
