import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite struct InterceptorMiddlewareTests {
    private typealias F = MiddlewareFixtures
    private static let tag = HTTPField.Name("X-Interceptor")!

    private func tagging(_ value: String) -> InterceptorMiddleware.BeforeSend {
        { request, _ in
            var request = request
            request.headerFields[Self.tag] = value
            return request
        }
    }

    /// A client with a 16-byte response limit over a stub answering 1,000 bytes (plus
    /// `extraRoutes`), and an `onResponseData` closure that counts its calls.
    private static func countingOnResponseData(extraRoutes: (StubTransport) -> Void = { _ in }) -> (APIClient, Locked<Int>) {
        let stub = StubTransport()
        stub.on(nil, "/**", .data(Data(repeating: 0x78, count: 1_000)))
        extraRoutes(stub)
        let calls = Locked(0)
        var interceptors = InterceptorMiddleware()
        interceptors.onResponseData { data, _, _ in
            calls.withLock { $0 += 1 }
            return data
        }
        return (APIClient(configuration: APIConfiguration(baseURL: F.baseURL, maxResponseSize: 16), transport: stub, middleware: [interceptors]), calls)
    }

    @Test("onResponseData leaves streamed responses alone: bytes(for:) streams past the client's size limit, the closure sees only collected bodies")
    func onResponseDataSkipsStreamedResponses() async throws {
        let (client, calls) = Self.countingOnResponseData(extraRoutes: { $0.on(nil, "/small", .text("small")) })
        let stream = try await client.bytes(for: F.text(.get, "/big"))
        #expect(try await stream.collect(upTo: 10_000).count == 1_000)
        #expect(calls.current == 0)
        #expect(try await client.send(F.text(.get, "/small")) == "small")
        #expect(calls.current == 1)
    }

    @Test("onResponseData over the client's size limit fails as resourceTooLarge, naming the request and the limit, and never calls the closure")
    func onResponseDataOverTheLimitIsResourceTooLarge() async throws {
        let (client, calls) = Self.countingOnResponseData()
        let error = await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/big")) }
        #expect(error?.kind == .resourceTooLarge)
        #expect(error?.request?.url.hasSuffix("/big") == true)
        #expect(error?.sizeLimit == 16)
        #expect(calls.current == 0)
    }

    @Test("onResponseData keeps a HEAD response's Content-Length (the size asked about), and a 204's lack of a body")
    func onResponseDataKeepsBodilessHeads() async throws {
        let transport = MiddlewareTestTransport { request, _, _ in
            var head = HTTPResponse(status: request.path == "/ok" ? .ok : .noContent)
            head.headerFields[.contentLength] = request.method == .head ? "12345" : nil
            // URLSession hands a collected 204 on as an empty body, AsyncHTTPClient as none.
            return (head, request.path == "/empty" ? HTTPBody() : nil)
        }
        var interceptors = InterceptorMiddleware()
        interceptors.onResponseData { data, _, _ in data }
        let client = APIClient(configuration: APIConfiguration(baseURL: F.baseURL), transport: transport, middleware: [interceptors])
        let head = try await client.response(for: Request<Void>(method: .head, path: "/ok"))
        #expect(head.response.headerFields[.contentLength] == "12345")
        for path in ["/none", "/empty"] {
            let none = try await client.response(for: Request<Void>(method: .delete, path: RequestPath(verbatim: path)))
            #expect(none.response.headerFields[.contentLength] == nil, "\(path)")
        }
    }

    @Test func runsTheGeneralClosureForEveryRequest() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend(tagging("all"))
        let client = F.client(stub, [interceptors])
        _ = try await client.send(F.text(.get, "/a"))
        _ = try await client.send(F.text(.post, "/b/c"))
        #expect(stub.requests.map { $0.headers[Self.tag] } == ["all", "all"])
    }

    @Test func theMostSpecificPathClosureWinsAndReplacesTheGeneralOne() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend(tagging("all"))
        interceptors.beforeSend(for: "/users/**", tagging("users"))
        interceptors.beforeSend(for: "/users/{id}/content", tagging("content"))
        interceptors.beforeSend(for: try .regex(matchingWholePath: "my/path/[0-9]{1,}/content"), tagging("regex"))
        let client = F.client(stub, [interceptors])
        for path in ["/users/7/content", "/users/7", "/other", "/my/path/42/content", "/my/path/x/content"] {
            _ = try await client.send(F.text(.get, RequestPath(verbatim: path)))
        }
        #expect(stub.requests.map { $0.headers[Self.tag] } == ["content", "users", "all", "regex", "all"])
    }

    @Test("selection: .everyMatch is Snowdrop's rule: both overlapping blocks run, in the order added; the general one only when none matched")
    func everyMatchRunsEveryMatchingClosure() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        let seen = Locked<[String]>([])
        func appending(_ name: String) -> InterceptorMiddleware.BeforeSend {
            { request, _ in
                seen.withLock { $0.append(name) }
                var request = request
                request.headerFields.append(HTTPField(name: Self.tag, value: name))
                return request
            }
        }
        // The seed's way: a block for a path and one for a wider pattern, plus a general block.
        var interceptors = InterceptorMiddleware(selection: .everyMatch)
        interceptors.beforeSend(appending("all"))
        try interceptors.beforeSend(for: .regex(matchingWholePath: "my/path/[0-9]{1,}/content"), appending("content"))
        try interceptors.beforeSend(for: .regex(matchingAnywhereInURL: "my/path"), appending("anywhere"))
        let responses = Locked(0)
        interceptors.onResponse(for: "/my/**") { response, body, _ in responses.withLock { $0 += 1 }; return (response, body) }
        interceptors.onResponse(for: "/my/path/{id}/content") { response, body, _ in responses.withLock { $0 += 10 }; return (response, body) }
        let client = F.client(stub, [interceptors])

        _ = try await client.send(F.text(.get, "/my/path/42/content"))
        #expect(stub.requests.last?.headers[values: Self.tag] == ["content", "anywhere"])
        #expect(responses.current == 11)
        _ = try await client.send(F.text(.get, "/other"))
        #expect(stub.requests.last?.headers[values: Self.tag] == ["all"])
        #expect(seen.current == ["content", "anywhere", "all"])

        // The default keeps one: the most specific.
        var single = InterceptorMiddleware()
        single.beforeSend(appending("all"))
        try single.beforeSend(for: .regex(matchingWholePath: "my/path/[0-9]{1,}/content"), appending("content"))
        try single.beforeSend(for: .regex(matchingAnywhereInURL: "my/path"), appending("anywhere"))
        _ = try await F.client(stub, [single]).send(F.text(.get, "/my/path/42/content"))
        #expect(stub.requests.last?.headers[values: Self.tag] == ["content"])
    }

    @Test("a string literal in regular-expression syntax, as Snowdrop's docs write it, matches as one (over the whole path), never as a literal that matches nothing")
    func regexSyntaxInALiteral() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend(tagging("all"))
        interceptors.beforeSend(for: "my/path/[0-9]{1,}/content", tagging("digits"))
        interceptors.beforeSend(for: #"^/items/\w+$"#, tagging("items"))
        let client = F.client(stub, [interceptors])
        for path in ["/my/path/42/content", "/my/path/x/content", "/items/abc", "/items/a/b"] {
            _ = try await client.send(F.text(.get, RequestPath(verbatim: path)))
        }
        #expect(stub.requests.map { $0.headers[Self.tag] } == ["digits", "all", "items", "all"])
        // A placeholder segment stays a placeholder, whatever it holds; a brace that is no
        // quantifier is no regular expression.
        let placeholder: InterceptorMiddleware.PathMatcher = "/users/{id}/content"
        #expect(placeholder.matches("/users/7/content"))
        let constrained: InterceptorMiddleware.PathMatcher = "/users/{id:[0-9]+}"
        #expect(constrained.matches("/users/7"))
        for pattern in ["/v1/{name}:cancel", "/files/**", "/files/*.json", "/count/{id=3}", "/raw/{+rest}"] {
            #expect(!InterceptorMiddleware.PathMatcher.isRegularExpressionSyntax(pattern), "\(pattern)")
        }
    }

    @Test("a literal in regular-expression syntax that does not compile fails each request with an error naming it")
    func brokenRegexLiteralFailsLoudly() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend(for: "my/path/[0-9/content", tagging("broken"))
        let client = F.client(stub, [interceptors])
        let error = await #expect(throws: APIError.self) { _ = try await client.send(F.text(.get, "/other")) }
        #expect(error.map { "\($0)" }?.contains("my/path/[0-9/content") == true)
        #expect(stub.requests.isEmpty)
    }

    @Test func matchesThePathNotTheQueryOrHost() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        var interceptors = InterceptorMiddleware()
        interceptors.beforeSend(for: try .regex(matchingWholePath: ".*admin.*"), tagging("admin"))
        let client = F.client(stub, [interceptors])
        _ = try await client.send(F.text(.get, "/public").query("next", "/admin"))
        _ = try await client.send(F.text(.get, "/admin/panel"))
        #expect(stub.requests.map { $0.headers[Self.tag] } == [nil, "admin"])
    }

    @Test func onResponseCanReplaceTheBody() async throws {
        let stub = StubTransport()
        stub.on(.get, "/greeting", .text("hello"))
        stub.on(.get, "/other", .text("untouched"))
        var interceptors = InterceptorMiddleware()
        interceptors.onResponseData(for: "/greeting") { data, _, _ in Data(String(decoding: data, as: UTF8.self).uppercased().utf8) }
        let client = F.client(stub, [interceptors])
        #expect(try await client.send(F.text(.get, "/greeting")) == "HELLO")
        #expect(try await client.send(F.text(.get, "/other")) == "untouched")
    }

    @Test func onResponseSeesTheStatus() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", .status(418))
        let seen = Locked<[Int]>([])
        var interceptors = InterceptorMiddleware()
        interceptors.onResponse { response, body, _ in
            seen.withLock { $0.append(response.status.code) }
            return (response, body)
        }
        let client = F.client(stub, [interceptors])
        await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/x")) }
        #expect(seen.current == [418])
    }
}
