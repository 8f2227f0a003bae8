import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("PathPattern: one syntax for stubs and interceptors")
struct PathPatternTests {
    @Test("literal segments, {name} and * for one segment", arguments: [
        ("/users/{id}", "/users/7", true), ("/users/{id}", "/users/7/posts", false),
        ("/users/*", "/users/7", true), ("/users/*", "/users", false),
        ("/users", "/users?page=2", true), ("/users", "//users/", true),
    ])
    func oneSegment(pattern: String, path: String, matches: Bool) {
        #expect(PathPattern(pattern).matches(path) == matches)
    }

    @Test("** matches any number of segments, none included, wherever it stands", arguments: [
        ("/files/**", "/files", true), ("/files/**", "/files/a/b.txt", true), ("/files/**", "/other", false),
        ("/**/avatar", "/users/7/avatar", true), ("/**/avatar", "/avatar", true), ("/**/avatar", "/users/7", false),
        ("/a/**/z", "/a/z", true), ("/a/**/z", "/a/b/c/z", true), ("/a/**/z", "/a/b/c", false),
        ("/**", "/", true), ("/a/**/**/z", "/a/q/z", true),
    ])
    func doubleStar(pattern: String, path: String, matches: Bool) {
        #expect(PathPattern(pattern).matches(path) == matches)
    }

    @Test("a stub and an interceptor read the same pattern the same way")
    func stubAndInterceptorAgree() async throws {
        let tag = HTTPField.Name("X-Tag")!
        let stub = StubTransport()
        stub.on(nil, "/**", .text("other"))
        stub.on(.get, "/**/avatar", .text("avatar"))          // the latest matching route answers
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend(for: "/**/avatar") { request, _ in
            var request = request
            request.headerFields[tag] = "avatar"
            return request
        }
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: stub, middleware: [interceptors])
        let answers = [try await client.send(Request<String>(path: "/users/7/avatar")),
                       try await client.send(Request<String>(path: "/users/7"))]
        #expect(answers == ["avatar", "other"])
        #expect(stub.requests.map { $0.headers[tag] } == ["avatar", nil])
    }
}

@Suite("Interceptor matchers: whole path or anywhere in the URL")
struct InterceptorMatcherTests {
    private static let tag = HTTPField.Name("X-Matched")!

    private func client(_ matcher: InterceptorMiddleware.PathMatcher, _ stub: StubTransport) -> APIClient {
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend(for: matcher) { request, _ in
            var request = request
            request.headerFields[Self.tag] = "yes"
            return request
        }
        return APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/v1")!),
                         transport: stub, middleware: [interceptors])
    }

    private func matched(_ matcher: InterceptorMiddleware.PathMatcher, paths: [String]) async throws -> [Bool] {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        let client = client(matcher, stub)
        for path in paths { _ = try await client.send(Request<String>(path: path)) }
        return stub.requests.map { $0.headers[Self.tag] == "yes" }
    }

    @Test("a whole-path regex needs the whole path; a URL regex matches anywhere, query included")
    func wholePathVersusAnywhere() async throws {
        let paths = ["/my/path/12/content", "/my/path/12/content?page=2", "/my/path/12/content/comments", "/search?q=content"]
        #expect(try await matched(.regex(matchingWholePath: "my/path/[0-9]+/content"), paths: paths) == [true, true, false, false])
        #expect(try await matched(.regex(matchingAnywhereInURL: "content"), paths: paths) == [true, true, true, true])
        #expect(try await matched(.regex(matchingAnywhereInURL: "^https://api\\.example\\.com/v1/my/"), paths: paths) == [true, true, true, false])
    }

    @Test("a path matcher beats a URL search when both match")
    func pathMatcherIsMoreSpecific() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend(for: "/users/{id}") { request, _ in
            var request = request
            request.headerFields[Self.tag] = "path"
            return request
        }
        interceptors.beforeSend(for: try .regex(matchingAnywhereInURL: "users")) { request, _ in
            var request = request
            request.headerFields[Self.tag] = "url"
            return request
        }
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: stub, middleware: [interceptors])
        _ = try await client.send(Request<String>(path: "/users/7"))
        _ = try await client.send(Request<String>(path: "/users"))
        #expect(stub.requests.map { $0.headers[Self.tag] } == ["path", "url"])
    }

    @Test("a regex that does not compile is an error, not a crash")
    func badRegex() {
        #expect(throws: (any Error).self) { try InterceptorMiddleware.PathMatcher.regex(matchingAnywhereInURL: "([") }
    }
}
