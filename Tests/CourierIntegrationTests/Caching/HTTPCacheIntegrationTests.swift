import Courier
import CourierTestServer
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// The HTTP cache against a real server on 127.0.0.1, over both transports: each directive the
/// cache honours, and the hostile cases the issue names.
@Suite("HTTP cache against a real server")
struct HTTPCacheIntegrationTests {
    struct Resource: Decodable, Sendable, Equatable {
        var n: String
        var varied: String
    }

    struct Stats: Decodable, Sendable, Equatable {
        var full: Int
        var notModified: Int
        var failed: Int
    }

    /// Everything one test needs: the server, a cached client, a plain client for the stats.
    struct Fixture {
        let server: TestServer
        let kind: TransportKind
        /// The cache's wall clock, which the test moves (the server's `Date` is real). It starts
        /// an hour behind the server's clock, so the `Date` the server sends never makes a
        /// response look older than the time the test let pass.
        let clock = ManualClock(now: Date().addingTimeInterval(-3600))
        let key: String

        func cache(_ store: any HTTPCacheStore = MemoryCacheStore(), namespace: String = "default",
                   stale: CachingMiddleware.StaleResponses = []) -> CachingMiddleware {
            let clock = self.clock
            return CachingMiddleware(store: store, namespace: namespace, staleResponses: stale, clock: clock)
        }

        func client(_ middleware: [any Middleware], configure: (inout APIConfiguration) -> Void = { _ in }) -> APIClient {
            var configuration = APIConfiguration(baseURL: server.baseURL)
            configure(&configuration)
            return APIClient(configuration: configuration, transport: kind.makeTransport(), middleware: middleware)
        }

        func resource(_ parameters: [String: String] = [:], headers: RequestHeaders = [:], options: RequestOptions = RequestOptions(),
                      key: String? = nil) -> Request<Resource> {
            var query = [URLQueryItem(name: "key", value: key ?? self.key)]
            for (name, value) in parameters.sorted(by: { $0.key < $1.key }) { query.append(URLQueryItem(name: name, value: value)) }
            return Request<Resource>(path: "/cache/resource", query: query, headers: headers, options: options)
        }

        func stats(key: String? = nil) async throws -> Stats {
            try await client([]).send(Request<Stats>(path: "/cache/stats", query: [URLQueryItem(name: "key", value: key ?? self.key)]))
        }
    }

    private func withFixture(_ kind: TransportKind, _ name: String = #function, _ body: (Fixture) async throws -> Void) async throws {
        try await withTestServer { (server: TestServer) async throws in
            try await body(Fixture(server: server, kind: kind, key: "\(kind.rawValue)-\(name)"))
        }
    }

    // MARK: Off by default

    @Test("without CachingMiddleware nothing is cached: URLSessionTransport's URLCache is off, AsyncHTTPClient has none",
          arguments: TransportKind.allCases)
    func offWithoutMiddleware(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([])
            let cacheable = ["cc": "max-age=3600, public", "etag": "\"v1\""]
            let first = try await client.response(for: fixture.resource(cacheable))
            let second = try await client.response(for: fixture.resource(cacheable))
            #expect(first.value.n == "1" && second.value.n == "2")
            #expect(first.metrics.cacheOutcome == nil && second.metrics.cacheOutcome == nil)
            #expect(try await fixture.stats() == Stats(full: 2, notModified: 0, failed: 0))
        }
    }

    // MARK: Freshness

    @Test("max-age: a fresh response is served from the store; after max-age it is fetched again", arguments: TransportKind.allCases)
    func maxAge(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let first = try await client.response(for: fixture.resource(["cc": "max-age=60"]))
            let second = try await client.response(for: fixture.resource(["cc": "max-age=60"]))
            #expect(first.value.n == "1" && second.value.n == "1")
            #expect(first.metrics.cacheOutcome == .miss && second.metrics.cacheOutcome == .hit)
            #expect(second.response.headerFields[.age] != nil)
            fixture.clock.advance(by: 120)
            #expect(try await client.send(fixture.resource(["cc": "max-age=60"])).n == "2")
            #expect(try await fixture.stats() == Stats(full: 2, notModified: 0, failed: 0))
        }
    }

    @Test("Expires: fresh until then; an invalid Expires is already expired", arguments: TransportKind.allCases)
    func expires(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let future = HTTPDate.string(Date().addingTimeInterval(3600))
            _ = try await client.send(fixture.resource(["expires": future]))
            #expect(try await client.response(for: fixture.resource(["expires": future])).metrics.cacheOutcome == .hit)
            _ = try await client.send(fixture.resource(["expires": "0"], key: fixture.key + "-bad"))
            _ = try await client.send(fixture.resource(["expires": "0"], key: fixture.key + "-bad"))
            #expect(try await fixture.stats(key: fixture.key + "-bad").full == 2)
        }
    }

    @Test("hostile Cache-Control: huge max-age is capped and served, negative and malformed max-age are stale", arguments: TransportKind.allCases)
    func hostileCacheControl(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let huge = "max-age=999999999999999999999999999999"
            _ = try await client.send(fixture.resource(["cc": huge], key: fixture.key + "-huge"))
            let hit = try await client.response(for: fixture.resource(["cc": huge], key: fixture.key + "-huge"))
            #expect(hit.metrics.cacheOutcome == .hit)
            for (suffix, value) in [("-neg", "max-age=-1"), ("-junk", "max-age=abc, ,,=,\"oops"), ("-dup", "max-age=10, max-age=20")] {
                _ = try await client.send(fixture.resource(["cc": value], key: fixture.key + suffix))
                _ = try await client.send(fixture.resource(["cc": value], key: fixture.key + suffix))
                #expect(try await fixture.stats(key: fixture.key + suffix).full == 2, "\(value)")
            }
        }
    }

    @Test("no-store is never stored; private is (a private cache)", arguments: TransportKind.allCases)
    func noStoreAndPrivate(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            for _ in 0..<2 { _ = try await client.send(fixture.resource(["cc": "no-store, max-age=60"])) }
            #expect(try await fixture.stats().full == 2)
            for _ in 0..<2 { _ = try await client.send(fixture.resource(["cc": "private, max-age=60"], key: fixture.key + "-p")) }
            #expect(try await fixture.stats(key: fixture.key + "-p").full == 1)
        }
    }

    // MARK: Validation

    @Test("ETag: no-cache revalidates every time; the 304 returns the stored body as 200", arguments: TransportKind.allCases)
    func etagRevalidation(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let parameters = ["cc": "no-cache", "etag": "\"v1\""]
            let first = try await client.response(for: fixture.resource(parameters))
            let second = try await client.response(for: fixture.resource(parameters))
            let third = try await client.response(for: fixture.resource(parameters))
            #expect(first.value == second.value && second.value == third.value)
            #expect(second.statusCode == 200)
            #expect(second.metrics.cacheOutcome == .revalidated && third.metrics.cacheOutcome == .revalidated)
            #expect(try await fixture.stats() == Stats(full: 1, notModified: 2, failed: 0))
        }
    }

    @Test("Last-Modified: a stale response is revalidated with If-Modified-Since", arguments: TransportKind.allCases)
    func lastModifiedRevalidation(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let parameters = ["cc": "max-age=10", "lastModified": "Mon, 01 Jan 2024 00:00:00 GMT"]
            _ = try await client.send(fixture.resource(parameters))
            fixture.clock.advance(by: 30)
            let revalidated = try await client.response(for: fixture.resource(parameters))
            #expect(revalidated.metrics.cacheOutcome == .revalidated)
            #expect(revalidated.value.n == "1")
            // The 304's max-age=10 counts from now: fresh again.
            #expect(try await client.response(for: fixture.resource(parameters)).metrics.cacheOutcome == .hit)
            #expect(try await fixture.stats() == Stats(full: 1, notModified: 1, failed: 0))
        }
    }

    @Test("request Cache-Control: no-cache revalidates, only-if-cached answers 504 without the network", arguments: TransportKind.allCases)
    func requestDirectives(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let parameters = ["cc": "max-age=600", "etag": "\"e\""]
            await #expect { try await client.send(fixture.resource(parameters, headers: [.cacheControl: "only-if-cached"])) } throws: {
                ($0 as? APIError)?.statusCode == 504
            }
            _ = try await client.send(fixture.resource(parameters))
            let forced = try await client.response(for: fixture.resource(parameters, headers: [.cacheControl: "no-cache"]))
            #expect(forced.metrics.cacheOutcome == .revalidated)
            let offline = try await client.response(for: fixture.resource(parameters, headers: [.cacheControl: "only-if-cached"]))
            #expect(offline.metrics.cacheOutcome == .hit)
            #expect(try await fixture.stats() == Stats(full: 1, notModified: 1, failed: 0))
        }
    }

    // MARK: Keys and Vary

    @Test("Vary: Accept-Language selects the stored response; Vary: * and a Vary of 1,000 fields are not stored", arguments: TransportKind.allCases)
    func vary(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let parameters = ["cc": "max-age=60", "vary": "Accept-Language"]
            // One variant per URL, as OkHttp keeps: a request that the stored variant does not
            // match goes to the server, and its response replaces the stored one.
            #expect(try await client.send(fixture.resource(parameters, headers: [.acceptLanguage: "fr"])) == Resource(n: "1", varied: "fr"))
            #expect(try await client.send(fixture.resource(parameters, headers: [.acceptLanguage: "fr"])) == Resource(n: "1", varied: "fr"))
            #expect(try await client.send(fixture.resource(parameters, headers: [.acceptLanguage: "de"])) == Resource(n: "2", varied: "de"))
            #expect(try await client.send(fixture.resource(parameters, headers: [.acceptLanguage: "de"])) == Resource(n: "2", varied: "de"))
            // (URLSession adds an Accept-Language of its own on the wire; the cache compares what
            // the request carries when it reaches the middleware.)
            #expect(try await client.send(fixture.resource(parameters)).n == "3")
            for _ in 0..<2 { _ = try await client.send(fixture.resource(["cc": "max-age=60", "vary": "*"], key: fixture.key + "-star")) }
            #expect(try await fixture.stats(key: fixture.key + "-star").full == 2)
            let thousand = (0..<1000).map { "X-F\($0)" }.joined(separator: ",")
            for _ in 0..<2 { _ = try await client.send(fixture.resource(["cc": "max-age=60", "vary": thousand], key: fixture.key + "-many")) }
            #expect(try await fixture.stats(key: fixture.key + "-many").full == 2)
        }
    }

    @Test("responses to requests with different Authorization never serve each other", arguments: TransportKind.allCases)
    func authorization(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let parameters = ["cc": "private, max-age=60"]
            let alice = try await client.send(fixture.resource(parameters, headers: [.authorization: "Bearer alice"]))
            let bob = try await client.send(fixture.resource(parameters, headers: [.authorization: "Bearer bob"]))
            let aliceAgain = try await client.send(fixture.resource(parameters, headers: [.authorization: "Bearer alice"]))
            #expect(alice.n == "1" && bob.n == "2" && aliceAgain.n == "1")
        }
    }

    // MARK: Invalidation

    @Test("a POST that succeeds invalidates its URL and a same-origin Location", arguments: TransportKind.allCases)
    func invalidation(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            let cached = fixture.resource(["cc": "max-age=600"])
            _ = try await client.send(cached)
            #expect(try await client.response(for: cached).metrics.cacheOutcome == .hit)
            // The POST goes to the same URL (its query names the key).
            let post = Request<Data>(method: .post, path: "/cache/resource", query: [URLQueryItem(name: "key", value: fixture.key),
                                                                                     URLQueryItem(name: "cc", value: "max-age=600")])
            _ = try await client.send(post)
            #expect(try await client.response(for: cached).metrics.cacheOutcome == .miss)
            // Location on the same origin, pointing at another cached resource.
            let other = fixture.resource(["cc": "max-age=600"], key: fixture.key + "-loc")
            _ = try await client.send(other)
            let location = try client.prepare(other).0.path ?? ""
            _ = try await client.send(Request<Data>(method: .post, path: "/cache/resource", query: [URLQueryItem(name: "location", value: location)]))
            #expect(try await client.response(for: other).metrics.cacheOutcome == .miss)
        }
    }

    // MARK: Stale responses

    @Test("stale-if-error serves the stored response while the server fails (opted in)", arguments: TransportKind.allCases)
    func staleIfError(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache(stale: .ifError)])
            let parameters = ["cc": "max-age=10, stale-if-error=600"]
            _ = try await client.send(fixture.resource(parameters))
            fixture.clock.advance(by: 60)
            _ = try await fixture.client([]).send(Request<Data>(method: .post, path: "/cache/fail", query: [URLQueryItem(name: "key", value: fixture.key)]))
            let stale = try await client.response(for: fixture.resource(parameters))
            #expect(stale.metrics.cacheOutcome == .stale)
            #expect(stale.value.n == "1")
            #expect(try await fixture.stats().failed == 1)
            // Beyond the window, the failure reaches the caller.
            fixture.clock.advance(by: 1_000)
            await #expect(throws: APIError.self) { try await client.send(fixture.resource(parameters)) }
        }
    }

    // MARK: Stores

    @Test("an entry larger than the store is not stored; the response is whole", arguments: TransportKind.allCases)
    func entryLargerThanStore(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let store = MemoryCacheStore(maxBytes: 2_000)
            let client = fixture.client([fixture.cache(store)])
            for _ in 0..<2 { _ = try await client.send(fixture.resource(["cc": "max-age=60", "size": "5000"])) }
            #expect(try await fixture.stats().full == 2)
            #expect(store.count == 0)
        }
    }

    @Test("Set-Cookie reaches the cookie jar once and is never replayed from the store", arguments: TransportKind.allCases)
    func cookiesAndCache(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let jar = CookieJar()
            let client = fixture.client([fixture.cache()]) { $0.cookieJar = jar }
            let parameters = ["cc": "max-age=60", "setCookie": "session=abc; Path=/"]
            let first = try await client.response(for: fixture.resource(parameters))
            jar.removeAll()
            let second = try await client.response(for: fixture.resource(parameters))
            #expect(first.metrics.cacheOutcome == .miss && second.metrics.cacheOutcome == .hit)
            #expect(second.response.headerFields[.setCookie] == nil)
            #expect(jar.cookies.isEmpty)
        }
    }

    @Test("coalescing in front of the cache: concurrent identical GETs make one request, later ones are hits", arguments: TransportKind.allCases)
    func coalescingAndCache(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([CoalescingMiddleware(), fixture.cache()])
            let request = fixture.resource(["cc": "max-age=60"])
            let values = try await withThrowingTaskGroup(of: Resource.self) { group in
                for _ in 0..<6 { group.addTask { try await client.send(request) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(values.allSatisfy { $0.n == "1" })
            #expect(try await fixture.stats().full == 1)
        }
    }
}

/// HTTP-date formatting for the tests (IMF-fixdate).
enum HTTPDate {
    static func string(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
