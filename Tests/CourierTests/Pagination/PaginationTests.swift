import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Pagination")
struct PaginationTests {
    private func pageQuery(_ recorded: RecordedRequest, _ name: String = "page") -> String? {
        recorded.queryItems.last { $0.name == name }?.value
    }

    @Test("page numbers: fetches pages until total_pages, one request per page")
    func pageNumbers() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users") { request in
            let page = Int(request.queryItems.last { $0.name == "page" }?.value ?? "1")!
            return .json(#"{"page": \#(page), "results": [\#(page * 10), \#(page * 10 + 1)], "total_pages": 3, "total_results": 6}"#)
        }
        var seen: [Page<Int>] = []
        for try await page in client.pages(Request<Page<Int>>(path: "/users").query("per_page", "2")) {
            seen.append(page)
        }
        #expect(seen.map(\.page) == [1, 2, 3])
        #expect(seen.flatMap(\.results) == [10, 11, 20, 21, 30, 31])
        #expect(stub.requests.map { pageQuery($0) } == [nil, "2", "3"])
        #expect(stub.requests.allSatisfy { pageQuery($0, "per_page") == "2" })
    }

    @Test("page numbers: a single page sends a single request")
    func singlePage() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users", .json(#"{"page": 1, "results": [], "total_pages": 1, "total_results": 0}"#))
        let pages = try await client.pages(Request<Page<Int>>(path: "/users")).collect()
        #expect(pages.count == 1)
        #expect(stub.requests.count == 1)
    }

    @Test("pages are fetched lazily: breaking early sends no more requests")
    func lazy() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users") { request in
            let page = Int(request.queryItems.last { $0.name == "page" }?.value ?? "1")!
            return .json(#"{"page": \#(page), "results": [], "total_pages": 100, "total_results": 0}"#)
        }
        for try await page in client.pages(Request<Page<Int>>(path: "/users")) where page.page == 2 { break }
        #expect(stub.requests.count == 2)
    }

    @Test("cursors: follows next_cursor until it is missing")
    func cursors() async throws {
        struct Feed: Decodable, Sendable { var items: [String]; var next_cursor: String? }
        let (client, stub) = makeClient()
        stub.on(.get, "/feed") { request in
            switch request.queryItems.last(where: { $0.name == "cursor" })?.value {
            case nil: return .json(#"{"items": ["a", "b"], "next_cursor": "c1"}"#)
            case "c1": return .json(#"{"items": ["c"], "next_cursor": "c2"}"#)
            default: return .json(#"{"items": ["d"]}"#)
            }
        }
        let pages = try await client.pages(Request<Feed>(path: "/feed"), cursorParameter: "cursor") { $0.next_cursor }.collect()
        #expect(pages.flatMap(\.items) == ["a", "b", "c", "d"])
        #expect(stub.requests.map { pageQuery($0, "cursor") } == [nil, "c1", "c2"])
    }

    @Test("cursors: a repeated cursor ends the sequence instead of looping")
    func repeatedCursor() async throws {
        struct Feed: Decodable, Sendable { var next: String? }
        let (client, stub) = makeClient()
        stub.on(.get, "/feed", .json(#"{"next": "same"}"#))
        let pages = try await client.pages(Request<Feed>(path: "/feed"), cursorParameter: "c") { $0.next }.collect()
        #expect(pages.count == 2)
    }

    @Test("a page sequence iterated twice fetches every page both times: each iteration keeps its own record of the pages it saw")
    func iteratedTwice() async throws {
        struct Feed: Decodable, Sendable { var items: [String]; var next: String? }
        let (client, stub) = makeClient()
        stub.on(.get, "/feed") { request in
            pageQuery(request, "c") == nil ? .json(#"{"items": ["a"], "next": "c1"}"#) : .json(#"{"items": ["b"]}"#)
        }
        let sequence = client.pages(Request<Feed>(path: "/feed"), cursorParameter: "c") { $0.next }
        #expect(try await sequence.collect().flatMap(\.items) == ["a", "b"])
        #expect(try await sequence.collect().flatMap(\.items) == ["a", "b"])
        #expect(stub.requests.count == 4)
    }

    @Test("a copy of the iterator may fetch the same page again (a retry after an error) without a false cycle; a real cycle still ends it")
    func copiedIterator() async throws {
        struct Feed: Decodable, Sendable { var items: [String]; var next: String? }
        let (client, stub) = makeClient()
        stub.on(.get, "/feed") { request in
            switch pageQuery(request, "c") {
            case nil: return .json(#"{"items": ["a"], "next": "c1"}"#)
            case "c1": return .json(#"{"items": ["b"], "next": "c2"}"#)
            default: return .json(#"{"items": ["c"]}"#)
            }
        }
        var iterator = client.pages(Request<Feed>(path: "/feed"), cursorParameter: "c") { $0.next }.makeAsyncIterator()
        #expect(try await iterator.next()?.items == ["a"])
        let saved = iterator
        #expect(try await iterator.next()?.items == ["b"])
        iterator = saved                                    // as after a failed page 2
        #expect(try await iterator.next()?.items == ["b"])
        #expect(try await iterator.next()?.items == ["c"])
        #expect(try await iterator.next() == nil)
    }

    @Test("Link headers: follows rel=next (absolute and relative) until there is none")
    func linkHeaders() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/repos") { request in
            switch request.queryItems.last(where: { $0.name == "page" })?.value {
            case nil:
                return StubResponse.json("[1, 2]").header(HTTPField.Name("Link")!,
                    #"<https://api.example.com/v2/repos?page=2&per_page=2>; rel="next", <https://api.example.com/v2/repos?page=3&per_page=2>; rel="last""#)
            case "2":
                return StubResponse.json("[3, 4]").header(HTTPField.Name("Link")!, #"</v2/repos?page=3&per_page=2>; rel="next last""#)
            default:
                return StubResponse.json("[5]").header(HTTPField.Name("Link")!, #"</v2/repos?page=1&per_page=2>; rel="first""#)
            }
        }
        let pages = try await client.pages(Request<[Int]>(path: "/repos").query("per_page", "2")).collect()
        #expect(pages == [[1, 2], [3, 4], [5]])
        #expect(stub.requests.map(\.target) == ["/v2/repos?per_page=2", "/v2/repos?page=2&per_page=2", "/v2/repos?page=3&per_page=2"])
    }

    @Test("Link headers: a next link that spells out the default port (:443) stays in the origin; another port does not")
    func explicitDefaultPort() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/repos") { request in
            switch request.queryItems.last(where: { $0.name == "page" })?.value {
            case nil: return StubResponse.json("[1]").header(HTTPField.Name("Link")!, #"<https://api.example.com:443/v2/repos?page=2>; rel="next""#)
            case "2": return StubResponse.json("[2]").header(HTTPField.Name("Link")!, #"<https://api.example.com:8443/v2/repos?page=3>; rel="next""#)
            default: return StubResponse.json("[3]")
            }
        }
        var pages: [[Int]] = []
        await #expect(throws: APIError.self) {
            for try await page in client.pages(Request<[Int]>(path: "/repos")) { pages.append(page) }
        }
        #expect(pages == [[1], [2]])
    }

    @Test("Link headers: a next link to another origin is refused")
    func crossOriginLink() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/repos", StubResponse.json("[1]").header(HTTPField.Name("Link")!, #"<https://evil.example.net/steal>; rel="next""#))
        var count = 0
        await #expect {
            for try await _ in client.pages(Request<[Int]>(path: "/repos")) { count += 1 }
        } throws: { error in
            if (error as? APIError)?.kind == .invalidURL { return true }
            return false
        }
        #expect(count == 1)
        #expect(stub.requests.count == 1)
    }

    @Test("errors end the sequence as APIError")
    func errors() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users") { request in
            request.queryItems.isEmpty
                ? .json(#"{"page": 1, "results": [], "total_pages": 3, "total_results": 0}"#)
                : .status(500, message: "boom")
        }
        var pages = 0
        await #expect {
            for try await _ in client.pages(Request<Page<Int>>(path: "/users")) { pages += 1 }
        } throws: { ($0 as? APIError)?.statusCode == 500 }
        #expect(pages == 1)
    }

    @Test("cancelling the task stops the sequence")
    func cancellation() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users") { request in
            let page = Int(request.queryItems.last { $0.name == "page" }?.value ?? "1")!
            return StubResponse.json(#"{"page": \#(page), "results": [], "total_pages": 1000000, "total_results": 0}"#)
                .delayed(by: .milliseconds(5))
        }
        let task = Task { try await client.pages(Request<Page<Int>>(path: "/users")).collect() }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let count = stub.requests.count
        try await Task.sleep(for: .milliseconds(50))
        #expect(stub.requests.count == count)
    }

    @Test("a cursor carried in a request header (Azure's x-ms-continuation) is no cycle; the same header value twice is")
    func headerCursor() async throws {
        let (client, stub) = makeClient()
        let continuation = HTTPField.Name("x-ms-continuation")!
        stub.on(.get, "/docs") { request in
            let token = request.headers[continuation] ?? ""
            let next = ["": "t1", "t1": "t2", "t2": ""][token] ?? ""
            return StubResponse(status: 200, headers: [continuation: next], body: Data("[\"\(token)\"]".utf8))
        }
        let pages = client.pages(Request<[String]>(path: "/docs")) { request, response in
            guard let next = response.response.headerFields[continuation], !next.isEmpty else { return nil }
            return Request<[String]>(path: "/docs", headers: [continuation: next])
        }
        #expect(try await pages.collect() == [[""], ["t1"], ["t2"]])
        // A server whose continuation comes round again is still a cycle.
        let looping = client.pages(Request<[String]>(path: "/docs", headers: [continuation: "t1"])) { _, _ in
            Request<[String]>(path: "/docs", headers: [continuation: "t1"])
        }
        await #expect(throws: APIError.self) { try await looping.collect() }
    }

    @Test("page numbers: a server that ignores the page parameter ends the sequence with an error, not a quiet stop short of total_pages")
    func serverIgnoresPage() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users", .json(#"{"page": 1, "results": [1], "total_pages": 5, "total_results": 5}"#))
        var seen: [Int] = []
        let error = await #expect(throws: APIError.self) {
            for try await page in client.pages(Request<Page<Int>>(path: "/users")) { seen.append(page.page) }
        }
        #expect(seen == [1, 1])
        #expect("\(String(describing: error))".contains("asked for page 2"))
    }

    @Test("page numbers: a page parameter in the path, where the next number cannot replace it, is refused before anything is sent")
    func pageParameterInThePath() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users", .json(#"{"page": 1, "results": [1], "total_pages": 5, "total_results": 5}"#))
        let error = await #expect(throws: APIError.self) {
            _ = try await client.pages(Request<Page<Int>>(path: "/users?page=1&per_page=50")).collect()
        }
        #expect(error?.kind == .encodingFailed)
        #expect(stub.requests.isEmpty)
    }

    @Test("page numbers: a page parameter in queryItems or queryParameters is replaced by the next number, not refused")
    func pageParameterInQueryItems() async throws {
        struct Users: APIRequest {
            typealias Response = Page<Int>
            var path: RequestPath { "/users" }
            var queryItems: [URLQueryItem]? { [URLQueryItem(name: "page", value: "1")] }
        }
        let (client, stub) = makeClient()
        stub.on(.get, "/users") { request in
            let page = Int(request.queryItems.last { $0.name == "page" }?.value ?? "1")!
            return .json(#"{"page": \#(page), "results": [\#(page)], "total_pages": 2, "total_results": 2}"#)
        }
        #expect(try await client.pages(Users()).collect().map(\.page) == [1, 2])
        #expect(stub.requests.map { $0.queryItems.filter { $0.name == "page" }.count } == [1, 1])
    }

    @Test("a custom next-request closure")
    func custom() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/events") { request in
            let offset = Int(request.queryItems.first { $0.name == "offset" }?.value ?? "0")!
            return .json(offset < 4 ? "[\(offset), \(offset + 1)]" : "[]")
        }
        let pages = client.pages(Request<[Int]>(path: "/events").query("offset", "0")) { request, response in
            guard !response.value.isEmpty else { return nil }
            let offset = Int(request.query.first { $0.name == "offset" }?.value ?? "0")! + 2
            return Request<[Int]>(path: "/events").query("offset", String(offset))
        }
        #expect(try await pages.collect() == [[0, 1], [2, 3], []])
    }
}

@Suite("RFC 8288 Link header parsing")
struct WebLinkTests {
    @Test("several links, quoted and unquoted rel, several relations, commas in targets and parameters")
    func parsing() {
        let links = WebLink.parse(#"<https://a.example/x?a=1,2>; rel="next last"; title="a, b", </p2>;rel=prev , <x>; REL=First"#)
        #expect(links.map(\.target) == ["https://a.example/x?a=1,2", "/p2", "x"])
        #expect(links.map(\.relations) == [["next", "last"], ["prev"], ["first"]])
        #expect(links[0].parameters["title"] == "a, b")
    }

    @Test("spaces and tabs around parameter names and unquoted values are trimmed")
    func optionalWhitespace() {
        let links = WebLink.parse("</2> ;\tREL\t= next \t; type = text/html\t, </9>;rel=last")
        #expect(links.map(\.target) == ["/2", "/9"])
        #expect(links.map(\.relations) == [["next"], ["last"]])
        #expect(links[0].parameters["type"] == "text/html")
    }

    @Test("several Link header fields are combined")
    func fields() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("Link")!, value: "</1>; rel=next"))
        fields.append(HTTPField(name: HTTPField.Name("Link")!, value: "</9>; rel=last"))
        #expect(WebLink.parse(fields).map(\.target) == ["/1", "/9"])
    }

    @Test("garbage yields no links")
    func garbage() {
        #expect(WebLink.parse("not a link").isEmpty)
        #expect(WebLink.parse("<unterminated; rel=next").isEmpty)
    }
}
