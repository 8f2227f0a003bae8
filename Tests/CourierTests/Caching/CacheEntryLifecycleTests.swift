import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// What happens to a stored entry: a revalidation answered by a `304` from elsewhere, a `304`
/// without `Date`, an answer that may not be stored, a request that refuses stale answers, a
/// purge by URL.
@Suite("CachingMiddleware: a stored entry's life")
struct CacheEntryLifecycleTests: CachingTestBed {
    let clock = ManualClock()

    @Test("a 304 from another origin a redirect led to never refreshes the stored entry: the request is sent again without validators")
    func redirected304() async throws {
        let origin = CacheOrigin { request, call in
            if request.authority == "evil.example.net" {
                return (.notModified, [(.cacheControl, "max-age=31536000"), (.contentType, "text/html")], "")
            }
            if call == 1 { return (.ok, [(.cacheControl, "max-age=10"), (.eTag, "\"v1\"")], "mine") }
            if request.headerFields[.ifNoneMatch] != nil { return (.found, [(.location, "https://evil.example.net/x")], "") }
            return (.ok, [(.cacheControl, "max-age=10"), (.eTag, "\"v2\"")], "fresh")
        }
        let client = MiddlewareFixtures.client(origin.transport, [cache()])
        #expect(try await client.send(get()) == "mine")
        clock.advance(by: 20)
        let second = try await client.response(for: get())
        #expect(second.value == "fresh")
        #expect(second.metrics.cacheOutcome == .miss)
        #expect(second.response.headerFields[.cacheControl] == "max-age=10")
        clock.advance(by: 20)
        _ = try await client.response(for: get())
        #expect(origin.requests.filter { $0.authority != "evil.example.net" && $0.headerFields[.ifNoneMatch] == nil }.count == 3)
    }

    @Test("a 304 without Date restarts the entry's age: the next request within max-age is a hit")
    func notModifiedWithoutDate() async throws {
        let clock = self.clock
        let origin = CacheOrigin { _, call in
            call == 1
                ? (.ok, [(.date, CacheFreshnessTests.httpDate(clock.now())), (.cacheControl, "max-age=60"), (.eTag, "\"a\"")], "body")
                : (.notModified, [(.eTag, "\"a\""), (.cacheControl, "max-age=60")], "")
        }
        let client = MiddlewareFixtures.client(origin.transport, [cache()])
        _ = try await client.send(get())
        clock.advance(by: 70)
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .revalidated)
        clock.advance(by: 5)
        let third = try await client.response(for: get())
        #expect(third.metrics.cacheOutcome == .hit)
        #expect(third.response.headerFields[.age] == "5")
        #expect(origin.count == 2)
    }

    @Test("an answer to a revalidation that may not be stored removes the old entry: no policy serves it afterwards")
    func unstorableAnswerRemovesEntry() async throws {
        let origin = CacheOrigin { _, call in
            call == 1 ? (.ok, [(.cacheControl, "max-age=10"), (.eTag, "\"v1\"")], "v1") : (.ok, [(.cacheControl, "no-store")], "v\(call)")
        }
        let client = MiddlewareFixtures.client(origin.transport, [cache()])
        _ = try await client.send(get())
        clock.advance(by: 20)
        #expect(try await client.send(get()) == "v2")
        var options = RequestOptions()
        options.cachePolicy = .returnCacheElseLoad
        #expect(try await client.send(get(options: options)) == "v3")
    }

    @Test("a server error or 429 answering a revalidation leaves the entry: an offline policy still serves it", arguments: [500, 503, 429])
    func failedRevalidationKeepsEntry(status: Int) async throws {
        let origin = CacheOrigin { _, call in
            call == 1 ? (.ok, [(.cacheControl, "max-age=10"), (.eTag, "\"v1\"")], "v1") : (HTTPResponse.Status(code: status), [], "failed")
        }
        let client = MiddlewareFixtures.client(origin.transport, [cache()])
        _ = try await client.send(get())
        clock.advance(by: 20)
        await #expect(throws: APIError.self) { try await client.send(get()) }
        var options = RequestOptions()
        options.cachePolicy = .returnCacheDontLoad
        #expect(try await client.send(get(options: options)) == "v1")
        #expect(origin.count == 2)
    }

    @Test("a 304 whose ETag is not the stored response's answers the request but does not refresh the entry",
          arguments: [("\"v1\"", true), ("\"v2\"", false)])
    func notModifiedForAnotherETag(eTag: String, refreshes: Bool) async throws {
        let origin = CacheOrigin { _, call in
            call == 1
                ? (.ok, [(.cacheControl, "max-age=10"), (.eTag, "\"v1\"")], "v1")
                : (.notModified, [(.cacheControl, "max-age=600"), (.eTag, eTag)], "")
        }
        let client = MiddlewareFixtures.client(origin.transport, [cache()])
        _ = try await client.send(get())
        clock.advance(by: 20)
        let revalidated = try await client.response(for: get())
        #expect(revalidated.value == "v1")
        #expect(revalidated.metrics.cacheOutcome == .revalidated)
        clock.advance(by: 1)
        // Refreshed: fresh for 600 s, a hit. Not refreshed: still the entry stale since 10 s.
        let next = try await client.response(for: get())
        #expect(next.metrics.cacheOutcome == (refreshes ? .hit : .revalidated))
        #expect(origin.count == (refreshes ? 2 : 3))
    }

    @Test("a request's max-age=0 or min-fresh is not answered from the stale-while-revalidate window")
    func staleWhileRevalidateHonoursRequestMaxAge() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=10, stale-while-revalidate=60")], "v\(call)") }
        let client = MiddlewareFixtures.client(origin.transport, [cache(stale: .whileRevalidating)])
        _ = try await client.send(get())
        clock.advance(by: 20)
        let reload = try await client.response(for: get(headers: [.cacheControl: "max-age=0"]))
        #expect(reload.value == "v2")
        #expect(reload.metrics.cacheOutcome == .miss)
        clock.advance(by: 20)
        #expect(try await client.send(get(headers: [.cacheControl: "min-fresh=5"])) == "v3")
    }

    @Test("a response that varies on Cookie is not stored when the client's cookie jar adds the cookies below the cache")
    func varyCookieWithJar() async throws {
        let origin = CacheOrigin { request, _ in
            if request.path == "/v1/login" { return (.ok, [(.setCookie, "sid=1; Path=/; Secure")], "ok") }
            let user = request.headerFields[.cookie]?.contains("sid=1") == true ? "ada" : "guest"
            return (.ok, [(.cacheControl, "max-age=300"), (.vary, "Cookie")], "hello \(user)")
        }
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.cookieJar = CookieJar()
        let client = APIClient(configuration: configuration, transport: origin.transport, middleware: [cache()])
        #expect(try await client.send(get("/home")) == "hello guest")
        _ = try await client.send(get("/login"))
        #expect(try await client.send(get("/home")) == "hello ada")
    }

    @Test("without a Cookie field of the request's own, a response that varies on Cookie is not stored: a transport's cookie store may add one below")
    func varyCookieWithoutOwnCookie() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=300"), (.vary, "Cookie")], "v\(call)") }
        let client = MiddlewareFixtures.client(origin.transport, [cache()])
        #expect(try await client.send(get("/home")) == "v1")
        #expect(try await client.send(get("/home")) == "v2")
        #expect(try await client.send(get("/home", headers: [.cookie: "sid=1"])) == "v3")
        #expect(try await client.send(get("/home", headers: [.cookie: "sid=1"])) == "v3")
    }

    @Test("removeEntries(for:) purges a URL whose secret query value the key holds as a digest, and a URL without a path")
    func purgeByURL() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=600")], "v\(call)") }
        let store = MemoryCacheStore()
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: origin.transport,
                               middleware: [cache(store)])
        #expect(try await client.send(get("/items?access_token=T-1")) == "v1")
        #expect(try await client.send(get("")) == "v2")
        await store.removeEntries(for: URL(string: "https://api.example.com/items?access_token=T-1")!)
        await store.removeEntries(for: URL(string: "https://api.example.com")!)
        #expect(try await client.send(get("/items?access_token=T-1")) == "v3")
        #expect(try await client.send(get("")) == "v4")
    }

    @Test("a Courier-Cache field the server sends never reaches the response metrics")
    func serverCannotSpoofCacheOutcome() async throws {
        let origin = CacheOrigin { _, _ in (.ok, [(.courierCache, "hit")], "x") }
        let client = MiddlewareFixtures.client(origin.transport, [])
        let response = try await client.response(for: get())
        #expect(response.metrics.cacheOutcome == nil)
        let cached = MiddlewareFixtures.client(origin.transport, [cache()])
        let post = try await cached.response(for: MiddlewareFixtures.text(.post, "/items"))
        #expect(post.metrics.cacheOutcome == nil)
    }
}
