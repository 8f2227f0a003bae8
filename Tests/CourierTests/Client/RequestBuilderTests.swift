import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Building requests")
struct RequestBuilderTests {
    @Test("the base URL's own path is kept and the path is joined to it")
    func basePathKept() throws {
        let (client, _) = makeClient(baseURL: "https://api.example.com/api/v2/")
        let (head, _) = try client.prepare(Request<Data>(path: "/users"))
        #expect(head.path == "/api/v2/users")
        #expect(head.authority == "api.example.com")
        #expect(head.scheme == "https")
        #expect(try client.prepare(Request<Data>(path: "users")).0.path == "/api/v2/users")
    }

    @Test("a body's own Content-Type beats a default header's (a multipart boundary survives a configured application/json); the request's own header beats both")
    func bodyContentTypeBeatsDefault() throws {
        let (client, _) = makeClient { $0.defaultHeaders[.contentType] = "application/json" }
        var form = MultipartForm(boundary: "b-1")
        form.append("ada", name: "user")
        #expect(try client.prepare(Request<Data>(method: .post, path: "/up", body: .multipart(form))).0.headerFields[.contentType] == "multipart/form-data; boundary=b-1")
        #expect(try client.prepare(Request<Data>(method: .post, path: "/f", body: .form([("a", "1")]))).0.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(try client.prepare(Request<Data>(method: .post, path: "/j", body: .json(["a": 1]))).0.headerFields[.contentType] == "application/json")
        #expect(try client.prepare(Request<Data>(method: .get, path: "/none")).0.headerFields[.contentType] == "application/json")
        let own = Request<Data>(method: .post, path: "/t", headers: [.contentType: "text/csv"], body: .data(Data("a,b".utf8), contentType: "text/plain"))
        #expect(try client.prepare(own).0.headerFields[.contentType] == "text/csv")
    }

    @Test("an absolute URL with an IPv6 literal host keeps its brackets (a next-page link against an IPv6 base URL)")
    func absoluteIPv6URL() throws {
        let (client, _) = makeClient(baseURL: "http://[::1]:8080/v2")
        let (head, _) = try client.prepare(Request<Data>(path: "http://[::1]:8080/v2/items?page=2"))
        #expect(head.authority == "[::1]:8080")
        #expect(head.path == "/v2/items?page=2")
    }

    /// A path of letters, digits, `-`, `_`, `~` and `/` skips the searches for a query, a
    /// fragment, a scheme, a template and dot segments; the others take the full parse. Both
    /// must build the same request a full parse would.
    @Test("a plain path and one that needs the full parse are built alike", arguments: [
        ("/users", "/api/users"), ("users", "/api/users"), ("", "/api"), ("/", "/api/"),
        ("/a-b_c~d/E9", "/api/a-b_c~d/E9"), ("/users?x=1", "/api/users?x=1"), ("/users#top", "/api/users"),
        ("/a.b", "/api/a.b"), ("/sp ace", "/api/sp%20ace"), ("/%41", "/api/%41"), ("/x:y", "/api/x:y"),
    ])
    func plainAndParsedPaths(path: String, expected: String) throws {
        let (client, _) = makeClient(baseURL: "https://h.example/api")
        #expect(try client.prepare(Request<Data>(path: RequestPath(verbatim: path))).0.path == expected)
        // The base URL's own query and base parameters join a plain path's target too.
        let (withQuery, _) = makeClient(baseURL: "https://h.example/api?v=2") { $0.baseParameters = [URLQueryItem(name: "lang", value: "en")] }
        let target = try withQuery.prepare(Request<Data>(path: RequestPath(verbatim: path))).0.path ?? ""
        #expect(target.hasPrefix(expected.split(separator: "?")[0] + "?") && target.contains("v=2") && target.contains("lang=en"))
    }

    @Test("a plain path's error names its URL; a secret in the base URL's query is redacted there too")
    func plainPathSummaries() async throws {
        let (client, stub) = makeClient(baseURL: "https://h.example/api")
        stub.on(.get, "/api/users", .status(500))
        await #expect { try await client.data(for: Request<Data>(path: "/users")) } throws: {
            ($0 as? APIError)?.request?.url == "https://h.example/api/users"
        }
        let (secret, secretStub) = makeClient(baseURL: "https://h.example/api?api_key=S3CRET")
        secretStub.on(.get, "/api/users", .status(500))
        await #expect { try await secret.data(for: Request<Data>(path: "/users")) } throws: { error in
            let url = (error as? APIError)?.request?.url ?? ""
            return url.hasPrefix("https://h.example/api/users?api_key=") && !url.contains("S3CRET")
        }
    }

    @Test("a percent-encoded host is sent, compared and credited as the host it decodes to; one that decodes to what no host name has is refused")
    func percentEncodedHost() throws {
        let (client, _) = makeClient(baseURL: "https://api.example.com/v2")
        let (head, _) = try client.prepare(Request<Data>(path: "https://api%2Eexample%2ecom/v2/items"))
        #expect(head.authority == "api.example.com")
        // The base URL's origin: its default headers go along, as to any request of its own.
        #expect(head.headerFields[.userAgent] != nil)
        for hostile in ["https://api.example.com%2F.evil.example/x", "https://evil%00.example/x", "https://b%C3%BCcher.example/x"] {
            let error = #expect(throws: APIError.self) { try client.prepare(Request<Data>(path: hostile)) }
            #expect(error?.kind == .invalidURL, "\(hostile)")
        }
    }

    @Test("a value interpolated after the path's own '?' is a query value: encoded whole, and empty or '..' allowed")
    func interpolatedQueryValue() throws {
        let (client, _) = makeClient()
        for (term, expected) in [("", "/v2/search?q="), ("..", "/v2/search?q=.."), ("a&b=c #d", "/v2/search?q=a%26b%3Dc%20%23d")] {
            #expect(try client.prepare(Request<Data>(path: "/search?q=\(term)")).0.path == expected, "\(term)")
        }
        // Before the '?', a value is still one path segment.
        #expect(throws: APIError.self) { try client.prepare(Request<Data>(path: "/files/\("..")?q=1")) }
    }

    @Test("a file body behind a symbolic link declares the file's size, not the link's; a directory is refused")
    func symlinkedFileBody() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("courier-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("archive.zip")
        try Data(repeating: 1, count: 5_000).write(to: file)
        let link = dir.appendingPathComponent("latest.zip")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        let (client, _) = makeClient()
        let (_, body) = try client.prepare(Request<Data>(method: .put, path: "/up", body: .file(link, contentType: "application/zip")))
        #expect(body?.length == .known(5_000))
        #expect(throws: APIError.self) { try client.prepare(Request<Data>(method: .put, path: "/up", body: .file(dir, contentType: "application/zip"))) }
    }

    @Test("an absolute URL in the path is used as it is")
    func absoluteURL() throws {
        let (client, _) = makeClient()
        let (head, _) = try client.prepare(Request<Data>(path: "http://other.example.org:8080/x?y=1", query: [.init(name: "z", value: "2")]))
        #expect(head.scheme == "http")
        #expect(head.authority == "other.example.org:8080")
        #expect(head.path == "/x?y=1&z=2")
    }

    @Test("bad URLs are typed errors", arguments: [
        "ftp://example.com/x", "https://user:pass@example.com/x", "https://example.com:70000/x",
    ])
    func invalidURLs(_ url: String) {
        let (client, _) = makeClient()
        #expect {
            try client.prepare(Request<Data>(path: url))
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .invalidURL, let shown = apiError.invalidURL else { return false }
            return !shown.contains("pass")
        }
    }

    @Test("a URL that cannot be parsed, or that fails to encode, does not show its password either",
          arguments: ["https://user:pass@[::1/x", "https://user:pass@example.com/a/../b", "https://user:pass@example.com/{id"])
    func unparsableURLsHideThePassword(_ url: String) {
        let (client, _) = makeClient()
        #expect {
            try client.prepare(Request<Data>(path: url))
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .invalidURL || apiError.kind == .encodingFailed else { return false }
            let shown = "\(apiError)" + (apiError.invalidURL ?? "") + (apiError.request?.url ?? "")
            return !shown.contains("pass") && shown.contains("example.com") == url.contains("example.com")
        }
    }

    @Test("default headers: Accept, User-Agent, Accept-Language; the request's own win")
    func headers() throws {
        let (client, _) = makeClient { $0.defaultHeaders = [.init("X-App")!: "demo", .accept: "text/plain"] }
        let plain = try client.prepare(Request<Data>(path: "/x")).0.headerFields
        #expect(plain[.userAgent] == "Courier/\(CourierInfo.version)")
        #expect(plain[.accept] == "text/plain")
        #expect(plain[.init("X-App")!] == "demo")
        let own = try client.prepare(Request<Data>(path: "/x", headers: [.init("X-App")!: "mine"])).0.headerFields
        #expect(own[values: .init("X-App")!] == ["mine"])
    }

    @Test("a header with CR or LF is refused before anything is sent, without echoing the value")
    func headerInjection() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        let request = Request<Data>(path: "/x").header("X-Trace", "abc\r\nX-Injected: yes")
        await #expect {
            try await client.send(request)
        } throws: { error in
            guard (error as? APIError)?.kind == .encodingFailed else { return false }
            return !"\(error)".contains("Injected") && "\(error)".contains("X-Trace")
        }
        #expect(stub.requests.isEmpty)
    }

    /// Written the way `HTTPFields` code is written: through the subscript, a literal, a string
    /// name, `append`. With `HTTPFields`, each of these turned CR/LF into spaces and sent
    /// `abc  X-Injected: yes`.
    @Test("CR or LF set through the headers' subscript, a literal, a string name or append is refused like header(_:_:)",
          arguments: [
              { (request: inout Request<Data>) in request.headers[.init("X-Trace")!] = "abc\r\nX-Injected: yes" },
              { (request: inout Request<Data>) in request.headers = [.init("X-Trace")!: "abc\nX-Injected: yes"] },
              { (request: inout Request<Data>) in request.headers["X-Trace"] = "abc\rX-Injected: yes" },
              { (request: inout Request<Data>) in request.headers.append(name: "X-Trace", value: "abc\u{0}X-Injected") },
              { (request: inout Request<Data>) in request.headers[values: .init("X-Trace")!] = ["ok", "abc\r\nX-Injected: yes"] },
          ] as [@Sendable (inout Request<Data>) -> Void])
    func headerSubscriptInjection(set: @Sendable (inout Request<Data>) -> Void) async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        var request = Request<Data>(path: "/x")
        set(&request)
        #expect(request.headers[.init("X-Trace")!] == nil)
        await #expect {
            try await client.send(request)
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .encodingFailed,
                  let refused = apiError.underlyingError as? InvalidHeaderError,
                  refused.name == "X-Trace", refused.reason == "the value contains CR, LF or NUL"
            else { return false }
            return !"\(error)".contains("Injected")
        }
        #expect(stub.requests.isEmpty)
    }

    @Test("a string header name that is not a token is refused; removing a header and valid values still work")
    func headerSubscriptNames() throws {
        var headers: RequestHeaders = [.accept: "text/plain"]
        headers["X-Ok"] = "1"
        headers.append(name: .init("X-Ok")!, value: "2")
        headers[.accept] = nil
        #expect(try headers.headerFields() == [.init("X-Ok")!: "1", .init("X-Ok")!: "2"])
        headers["Bad Name"] = "x"
        #expect { try headers.headerFields() } throws: { error in
            (error as? InvalidHeaderError)?.name == "Bad Name" && (error as? InvalidHeaderError)?.reason == "the name is not a valid HTTP token"
        }
    }

    @Test("a default header with CR or LF makes every request fail instead of going out mangled")
    func defaultHeaderInjection() async throws {
        let (client, stub) = makeClient { $0.defaultHeaders[.init("X-Api-Key")!] = "key\n" }
        stub.on(nil, "/**", .status(200))
        await #expect {
            try await client.send(Request<Data>(path: "/x"))
        } throws: { error in
            ((error as? APIError)?.underlyingError as? InvalidHeaderError)?.name == "X-Api-Key"
        }
        #expect(stub.requests.isEmpty)
    }

    @Test("base parameters are added unless the request opts out")
    func baseParameters() throws {
        let (client, _) = makeClient { $0.baseParameters = [.init(name: "app", value: "1.0"), .init(name: "os", value: "linux")] }
        #expect(try client.prepare(Request<Data>(path: "/x", query: [.init(name: "q", value: "a b")])).0.path == "/v2/x?q=a%20b&app=1.0&os=linux")
        let optedOut = Request<Data>(path: "/x", options: RequestOptions(includeBaseParameters: false))
        #expect(try client.prepare(optedOut).0.path == "/v2/x")
    }

    @Test("JSON and form bodies carry their content type; the request's own Content-Type wins")
    func bodies() async throws {
        let (client, _) = makeClient()
        let (jsonHead, jsonBody) = try client.prepare(Request<Data>(method: .post, path: "/u", body: .json(NewUser(name: "Ada"))))
        #expect(jsonHead.headerFields[.contentType] == "application/json")
        #expect(String(decoding: try await Data(collecting: jsonBody!, upTo: .max), as: UTF8.self) == #"{"name":"Ada"}"#)
        let (formHead, formBody) = try client.prepare(Request<Data>(method: .post, path: "/u", body: .form([("a b", "c&d")])))
        #expect(formHead.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(String(decoding: try await Data(collecting: formBody!, upTo: .max), as: UTF8.self) == "a+b=c%26d")
        let custom = Request<Data>(method: .post, path: "/u", headers: [.contentType: "application/vnd.api+json"], body: .json(NewUser(name: "A")))
        #expect(try client.prepare(custom).0.headerFields[.contentType] == "application/vnd.api+json")
    }

    @Test("a missing file body is an encoding error that names the request")
    func missingFile() {
        let (client, _) = makeClient()
        let request = Request<Data>(method: .put, path: "/f", body: .file(URL(fileURLWithPath: "/nonexistent/file.bin"), contentType: "application/octet-stream"))
        #expect {
            try client.prepare(request)
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .encodingFailed, let summary = apiError.request else { return false }
            return summary.url.hasSuffix("/v2/f")
        }
    }

    @Test("snake_case strategies are one call away")
    func snakeCase() async throws {
        struct Profile: Codable, Sendable, Equatable { var displayName: String }
        let (client, stub) = makeClient { $0.useSnakeCaseKeys() }
        stub.on(.post, "/profile", handler: { request in .json(data: request.body) })
        let echoed = try await client.send(Request<Profile>(method: .post, path: "/profile", body: .json(Profile(displayName: "Ada"))))
        #expect(stub.requests.last?.bodyText == #"{"display_name":"Ada"}"#)
        #expect(echoed == Profile(displayName: "Ada"))
    }

    @Test("a body's content type with a line break is refused before anything is sent, like any header value")
    func contentTypeWithLineBreak() async throws {
        let (client, stub) = makeClient()
        stub.on(.post, "/x", .text("ok"))
        let request = Request<Data>(method: .post, path: "/x", body: .data(Data("a".utf8), contentType: "text/plain\r\nX-Evil: 1"))
        await #expect { try await client.send(request) } throws: { ($0 as? APIError)?.kind == .encodingFailed }
        #expect(stub.requests.isEmpty)
    }
}
