import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("CachingMiddleware: what is stored, invalidation, and requests it leaves alone (RFC 9111 §3, §4.4)")
struct CachingMiddlewareStorageTests: CachingTestBed {
    let clock = ManualClock()

    // MARK: What is stored

    @Test("only cacheable statuses are stored; a 500 without explicit freshness is not; a 404 with max-age is")
    func statuses() async throws {
        let origin = CacheOrigin { request, call in
            request.path == "/v1/missing" ? (.notFound, [(.cacheControl, "max-age=60")], "\(call)") : (.internalServerError, [(.lastModified, "Mon, 01 Jan 2024 00:00:00 GMT")], "\(call)")
        }
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.acceptableStatusCodes = Set(200..<600)
        let client = APIClient(configuration: configuration, transport: origin.transport, middleware: [cache()])
        _ = try await client.send(get("/error"))
        _ = try await client.send(get("/error"))
        #expect(origin.count == 2)
        _ = try await client.send(get("/missing"))
        #expect(try await client.response(for: get("/missing")).metrics.cacheOutcome == .hit)
        #expect(origin.count == 3)
    }

    @Test("Set-Cookie is never stored or replayed from the store")
    func setCookieNotStored() async throws {
        let origin = CacheOrigin { _, _ in (.ok, [(.cacheControl, "max-age=60"), (.setCookie, "session=abc")], "x") }
        let client = client(origin, [cache()])
        let first = try await client.response(for: get())
        let second = try await client.response(for: get())
        #expect(first.response.headerFields[.setCookie] == "session=abc")
        #expect(second.metrics.cacheOutcome == .hit)
        #expect(second.response.headerFields[.setCookie] == nil)
    }

    @Test("credential fields of a response (a rotated access token) are never stored, in memory or on disk, nor replayed", arguments: [false, true])
    func credentialFieldsNotStored(onDisk: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any HTTPCacheStore = onDisk ? DiskCacheStore(directory: directory) : MemoryCacheStore()
        let origin = CacheOrigin { _, _ in
            (.ok, [(.cacheControl, "private, max-age=60"), (.eTag, "\"v1\""), (HTTPField.Name("Access-Token")!, "s3cret-token"),
                   (HTTPField.Name("X-Api-Key")!, "s3cret-key"), (HTTPField.Name("X-Request-Id")!, "r1")], "x")
        }
        let client = client(origin, [cache(store)])
        let first = try await client.response(for: get())
        let second = try await client.response(for: get())
        #expect(first.response.headerFields[HTTPField.Name("Access-Token")!] == "s3cret-token")
        #expect(second.metrics.cacheOutcome == .hit)
        #expect(second.response.headerFields[HTTPField.Name("Access-Token")!] == nil)
        #expect(second.response.headerFields[HTTPField.Name("X-Api-Key")!] == nil)
        #expect(second.response.headerFields[HTTPField.Name("X-Request-Id")!] == "r1")
        if onDisk {
            for file in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) {
                let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
                #expect(!text.contains("s3cret"), "\(file.lastPathComponent)")
            }
        }
    }

    @Test("hop-by-hop fields (Connection and the fields it names, Transfer-Encoding, Keep-Alive) are not stored")
    func hopByHopNotStored() async throws {
        let origin = CacheOrigin { _, _ in
            (.ok, [(.cacheControl, "max-age=60"), (.connection, "X-Hop"), (HTTPField.Name("X-Hop")!, "1"), (.transferEncoding, "chunked"),
                   (HTTPField.Name("Keep-Alive")!, "timeout=5"), (.contentType, "text/plain")], "x")
        }
        let client = client(origin, [cache()])
        _ = try await client.send(get())
        let hit = try await client.response(for: get())
        #expect(hit.metrics.cacheOutcome == .hit)
        let names = Set(hit.response.headerFields.map { $0.name.canonicalName })
        #expect(names.isDisjoint(with: ["connection", "x-hop", "transfer-encoding", "keep-alive"]))
        #expect(hit.response.headerFields[.contentType] == "text/plain")
    }

    @Test("a Connection field cannot strip the fields the cache decides by (Cache-Control, Vary, ETag…): no-cache stays no-cache once stored")
    func connectionCannotStripCacheFields() async throws {
        let origin = CacheOrigin { request, _ in
            if request.headerFields[.ifNoneMatch] == "\"1\"" {
                return (.notModified, [(.eTag, "\"1\""), (.cacheControl, "no-cache"), (.connection, "cache-control")], "")
            }
            return (.ok, [(.cacheControl, "no-cache"), (.connection, "cache-control, etag, vary, x-hop"), (.eTag, "\"1\""),
                          (.lastModified, "Mon, 01 Jan 2001 00:00:00 GMT"), (HTTPField.Name("X-Hop")!, "1")], "x")
        }
        let client = client(origin, [cache()])
        _ = try await client.send(get())
        // Stored without its Cache-Control, it would be fresh for a heuristic day: a hit.
        let second = try await client.response(for: get())
        #expect(second.metrics.cacheOutcome == .revalidated)
        #expect(origin.requests.last?.headerFields[.ifNoneMatch] == "\"1\"")
        #expect(second.response.headerFields[.cacheControl] == "no-cache")
        #expect(second.response.headerFields[HTTPField.Name("X-Hop")!] == nil)
        let third = try await client.response(for: get())
        #expect(third.metrics.cacheOutcome == .revalidated)
        #expect(origin.count == 3)
    }

    @Test("an entry larger than the store is not stored, and the response is still whole")
    func entryLargerThanStore() async throws {
        let big = String(repeating: "x", count: 10_000)
        let origin = CacheOrigin { _, _ in (.ok, [(.cacheControl, "max-age=60")], big) }
        let store = MemoryCacheStore(maxBytes: 4_000)
        let client = client(origin, [cache(store)])
        #expect(try await client.send(get()) == big)
        #expect(try await client.send(get()) == big)
        #expect(origin.count == 2)
        #expect(store.count == 0)
    }

    @Test("a response reached through a redirect is not stored under the first URL")
    func redirectNotStored() async throws {
        let origin = CacheOrigin { request, call in
            request.path == "/v1/old" ? (.found, [(.location, "/v1/new")], "") : (.ok, [(.cacheControl, "max-age=60")], "\(call)")
        }
        let client = client(origin, [cache()])
        #expect(try await client.send(get("/old")) == "2")
        #expect(try await client.send(get("/old")) == "4")
        #expect(origin.count == 4)
    }

    @Test("streamed responses neither read nor fill the store")
    func streamsBypass() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60")], "\(call)") }
        let client = client(origin, [cache()])
        let streamed = try await client.stream(for: get())
        if let body = streamed.body { _ = try await Data(collecting: body, upTo: 1 << 20) }
        #expect(try await client.send(get()) == "2")
        let again = try await client.stream(for: get())
        #expect(again.response.cacheOutcome == nil)
        if let body = again.body { _ = try await Data(collecting: body, upTo: 1 << 20) }
        #expect(origin.count == 3)
    }

    @Test("heuristic freshness from Last-Modified, for a 200 without explicit freshness")
    func heuristic() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.date, date()), (.lastModified, date(-1000))], "\(call)") }
        let client = client(origin, [cache()])
        _ = try await client.send(get())
        clock.advance(by: 50)
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .hit)
        clock.advance(by: 60)
        _ = try await client.send(get())
        #expect(origin.count == 2)
    }

    // MARK: Invalidation

    @Test("a successful POST invalidates its URL and a same-origin Location; another origin's Location and a failed POST leave the store alone")
    func invalidation() async throws {
        let origin = CacheOrigin { request, call in
            switch (request.method, request.path ?? "") {
            case (.post, "/v1/items"): return (.created, [(.location, "/v1/items/7"), (.contentLocation, "https://elsewhere.example.com/v1/items")], "")
            case (.post, "/v1/fail"): return (.badRequest, [], "")
            default: return (.ok, [(.cacheControl, "max-age=600")], "\(request.path ?? "") \(call)")
            }
        }
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.acceptableStatusCodes = Set(200..<500)
        let client = APIClient(configuration: configuration, transport: origin.transport, middleware: [cache()])
        _ = try await client.send(get("/items"))
        _ = try await client.send(get("/items/7"))
        _ = try await client.send(get("/fail"))
        #expect(origin.count == 3)
        _ = try await client.send(MiddlewareFixtures.text(.post, "/fail"))
        #expect(try await client.response(for: get("/fail")).metrics.cacheOutcome == .hit)
        _ = try await client.send(MiddlewareFixtures.text(.post, "/items"))
        #expect(try await client.response(for: get("/items")).metrics.cacheOutcome == .miss)
        #expect(try await client.response(for: get("/items/7")).metrics.cacheOutcome == .miss)
        #expect(origin.count == 7)
    }

    @Test("a successful PUT invalidates its URL's stored GET also when it carries a secret-looking header the GET did not (a CSRF token)")
    func invalidationWithRequestOnlyCredentials() async throws {
        let origin = CacheOrigin { request, call in
            request.method == .put ? (.noContent, [], "") : (.ok, [(.cacheControl, "max-age=600")], "v\(call)")
        }
        let client = client(origin, [cache()])
        let cookie: RequestHeaders = [.cookie: "session=abc"]
        #expect(try await client.send(get("/items", headers: cookie)) == "v1")
        #expect(try await client.response(for: get("/items", headers: cookie)).metrics.cacheOutcome == .hit)
        _ = try await client.send(Request<Data>(method: .put, path: "/items", headers: [.cookie: "session=abc", HTTPField.Name("X-CSRF-Token")!: "t"],
                                                body: .data(Data("{}".utf8), contentType: "application/json")))
        let after = try await client.response(for: get("/items", headers: cookie))
        #expect(after.metrics.cacheOutcome == .miss)
        #expect(after.value == "v3")
    }

    // MARK: Out of the way

    @Test("requests with a body, HEAD, Range or the caller's own validators pass through untouched")
    func passThrough() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60")], "\(call)") }
        let client = client(origin, [cache()])
        _ = try await client.send(get(headers: [.ifNoneMatch: "\"x\""]))
        _ = try await client.send(get(headers: [.range: "bytes=0-1"]))
        _ = try await client.send(MiddlewareFixtures.text(.head, "/items"))
        _ = try await client.send(MiddlewareFixtures.text(.head, "/items"))
        #expect(origin.count == 4)
        #expect(origin.requests.allSatisfy { $0.headerFields[.courierCache] == nil })
    }
}
