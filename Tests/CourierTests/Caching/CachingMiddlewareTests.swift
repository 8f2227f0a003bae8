import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// An origin server in memory: answers with what the test's responder says, and records each
/// request it got.
final class CacheOrigin: Sendable {
    typealias Responder = @Sendable (_ request: HTTPRequest, _ call: Int) -> (HTTPResponse.Status, [(HTTPField.Name, String)], String)
    private let log = Locked<[HTTPRequest]>([])
    private let responder: Locked<Responder>

    init(_ responder: @escaping Responder) { self.responder = Locked(responder) }

    var requests: [HTTPRequest] { log.current }
    var count: Int { log.current.count }
    func respond(with responder: @escaping Responder) { self.responder.withLock { $0 = responder } }

    var transport: MiddlewareTestTransport {
        MiddlewareTestTransport { request, _, _ in
            let call = self.log.withLock { log -> Int in
                log.append(request)
                return log.count
            }
            let (status, fields, body) = self.responder.current(request, call)
            var headerFields = HTTPFields()
            for (name, value) in fields { headerFields.append(HTTPField(name: name, value: value)) }
            return (HTTPResponse(status: status, headerFields: headerFields), HTTPBody(body))
        }
    }
}

/// A wall clock the test moves.
final class CacheTestClock: Sendable {
    private let time = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { time.current }
    func advance(by seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

@Suite("CachingMiddleware")
struct CachingMiddlewareTests {
    private let clock = CacheTestClock()

    private func cache(_ store: any HTTPCacheStore = MemoryCacheStore(), namespace: String = "default", policy: CachePolicy = .useProtocol,
                       stale: CachingMiddleware.StaleResponses = []) -> CachingMiddleware {
        let clock = self.clock
        return CachingMiddleware(store: store, namespace: namespace, policy: policy, staleResponses: stale, now: { clock.now })
    }

    private func client(_ origin: CacheOrigin, _ middleware: [any Middleware]) -> APIClient {
        MiddlewareFixtures.client(origin.transport, middleware)
    }

    private func get(_ path: String = "/items", headers: RequestHeaders = [:], options: RequestOptions = RequestOptions()) -> Request<String> {
        MiddlewareFixtures.text(.get, RequestPath(verbatim: path), headers: headers, options: options)
    }

    private func date(_ offset: TimeInterval = 0) -> String {
        CacheFreshnessTests.httpDate(clock.now.addingTimeInterval(offset))
    }

    // MARK: Freshness

    @Test("a fresh response is served from the store: one network request, Age and Courier-Cache: hit")
    func freshHit() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60")], "body \(call)") }
        let client = client(origin, [cache()])
        let first = try await client.response(for: get())
        clock.advance(by: 10)
        let second = try await client.response(for: get())
        #expect(origin.count == 1)
        #expect(first.value == "body 1" && second.value == "body 1")
        #expect(first.metrics.cacheOutcome == .miss)
        #expect(second.metrics.cacheOutcome == .hit)
        #expect(second.response.headerFields[.age] == "10")
        #expect(second.statusCode == 200)
    }

    @Test("a stale response is revalidated with If-None-Match and If-Modified-Since; a 304 returns the stored body as 200 and refreshes the headers")
    func revalidation() async throws {
        let lastModified = date(-3600)
        let origin = CacheOrigin { request, call in
            if request.headerFields[.ifNoneMatch] == "\"v1\"" { return (.notModified, [(.cacheControl, "max-age=100"), (.eTag, "\"v1\""), (HTTPField.Name("X-Refreshed")!, "yes")], "") }
            return (.ok, [(.cacheControl, "max-age=5"), (.eTag, "\"v1\""), (.lastModified, lastModified), (.contentType, "text/plain")], "full \(call)")
        }
        let client = client(origin, [cache()])
        _ = try await client.send(get())
        clock.advance(by: 6)
        let revalidated = try await client.response(for: get())
        #expect(origin.count == 2)
        #expect(origin.requests[1].headerFields[.ifNoneMatch] == "\"v1\"")
        #expect(origin.requests[1].headerFields[.ifModifiedSince] == lastModified)
        #expect(revalidated.value == "full 1")
        #expect(revalidated.statusCode == 200)
        #expect(revalidated.metrics.cacheOutcome == .revalidated)
        #expect(revalidated.response.headerFields[HTTPField.Name("X-Refreshed")!] == "yes")
        #expect(revalidated.response.headerFields[.contentType] == "text/plain")
        // The 304's max-age=100 now governs: fresh for a while.
        clock.advance(by: 50)
        let hit = try await client.response(for: get())
        #expect(origin.count == 2)
        #expect(hit.metrics.cacheOutcome == .hit)
    }

    @Test("a 200 to a revalidation replaces the stored response")
    func revalidationWithNewBody() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=5"), (.eTag, "\"v\(call)\"")], "v\(call)") }
        let client = client(origin, [cache()])
        #expect(try await client.send(get()) == "v1")
        clock.advance(by: 6)
        let second = try await client.response(for: get())
        #expect(second.value == "v2")
        #expect(second.metrics.cacheOutcome == .miss)
        #expect(try await client.send(get()) == "v2")
        #expect(origin.count == 2)
    }

    @Test("no-store (response or request) is never stored; no-cache is stored but always revalidated")
    func noStoreNoCache() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "no-store, max-age=60")], "\(call)") }
        let client = client(origin, [cache()])
        _ = try await client.send(get())
        _ = try await client.send(get())
        #expect(origin.count == 2)

        origin.respond { _, call in (.ok, [(.cacheControl, "max-age=60")], "\(call)") }
        _ = try await client.send(get("/other", headers: [.cacheControl: "no-store"]))
        _ = try await client.send(get("/other"))
        #expect(origin.count == 4)

        origin.respond { request, call in
            request.headerFields[.ifNoneMatch] != nil ? (.notModified, [], "") : (.ok, [(.cacheControl, "no-cache, max-age=60"), (.eTag, "\"a\"")], "\(call)")
        }
        _ = try await client.send(get("/nc"))
        let second = try await client.response(for: get("/nc"))
        #expect(origin.count == 6)
        #expect(second.metrics.cacheOutcome == .revalidated)
    }

    @Test("request Cache-Control: no-cache and max-age=0 revalidate; max-stale accepts a stale response; min-fresh refuses a nearly stale one")
    func requestDirectives() async throws {
        let origin = CacheOrigin { request, call in
            request.headerFields[.ifNoneMatch] != nil ? (.notModified, [], "") : (.ok, [(.cacheControl, "max-age=60"), (.eTag, "\"a\"")], "\(call)")
        }
        let client = client(origin, [cache()])
        _ = try await client.send(get())
        #expect(try await client.response(for: get(headers: [.cacheControl: "no-cache"])).metrics.cacheOutcome == .revalidated)
        #expect(try await client.response(for: get(headers: [.cacheControl: "max-age=0"])).metrics.cacheOutcome == .revalidated)
        #expect(origin.count == 3)
        clock.advance(by: 55)
        #expect(try await client.response(for: get(headers: [.cacheControl: "min-fresh=10"])).metrics.cacheOutcome == .revalidated)
        clock.advance(by: 70)
        #expect(try await client.response(for: get(headers: [.cacheControl: "max-stale=100"])).metrics.cacheOutcome == .stale)
        #expect(origin.count == 4)
    }

    @Test("must-revalidate refuses max-stale")
    func mustRevalidate() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=1, must-revalidate")], "\(call)") }
        let client = client(origin, [cache()])
        _ = try await client.send(get())
        clock.advance(by: 5)
        #expect(try await client.send(get(headers: [.cacheControl: "max-stale"])) == "2")
    }

    // MARK: Keys

    @Test("responses fetched with different credentials never serve each other; equal credentials share")
    func credentialsSeparate() async throws {
        let origin = CacheOrigin { request, _ in (.ok, [(.cacheControl, "private, max-age=60")], "for \(request.headerFields[.authorization] ?? "nobody")") }
        let client = client(origin, [cache()])
        #expect(try await client.send(get(headers: [.authorization: "Bearer alice"])) == "for Bearer alice")
        #expect(try await client.send(get(headers: [.authorization: "Bearer bob"])) == "for Bearer bob")
        #expect(try await client.send(get())  == "for nobody")
        #expect(try await client.send(get(headers: [.authorization: "Bearer alice"])) == "for Bearer alice")
        #expect(try await client.send(get(headers: [HTTPField.Name("X-API-Key")!: "k1"])) == "for nobody")
        #expect(try await client.send(get(headers: [HTTPField.Name("X-API-Key")!: "k2"])) == "for nobody")
        #expect(origin.count == 5)   // alice, bob, nobody, k1, k2; alice's second came from the store
    }

    @Test("two clients sharing one store with different namespaces never serve each other")
    func namespaces() async throws {
        let store = MemoryCacheStore()
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60")], "\(call)") }
        let tenantA = client(origin, [cache(store, namespace: "tenant-a")])
        let tenantB = client(origin, [cache(store, namespace: "tenant-b")])
        #expect(try await tenantA.send(get()) == "1")
        #expect(try await tenantB.send(get()) == "2")
        #expect(try await tenantA.send(get()) == "1")
        await store.removeEntries(inNamespace: "tenant-a")
        #expect(try await tenantA.send(get()) == "3")
        #expect(try await tenantB.send(get()) == "2")
    }

    @Test("a secret query value enters the key as a digest: different tokens never share, and the store never holds the token")
    func secretQuery() async throws {
        let store = MemoryCacheStore()
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60")], "\(call)") }
        let client = client(origin, [cache(store)])
        #expect(try await client.send(get("/feed?access_token=SECRET1&page=1")) == "1")
        #expect(try await client.send(get("/feed?access_token=SECRET2&page=1")) == "2")
        #expect(try await client.send(get("/feed?access_token=SECRET1&page=1")) == "1")
        let keys = Locked<[HTTPCacheKey]>([])
        await store.removeEntries { key in keys.withLock { $0.append(key) }; return false }
        #expect(keys.current.count == 2)
        #expect(keys.current.allSatisfy { !$0.url.contains("SECRET") && $0.url.contains("access_token=sha256:") && $0.url.hasSuffix("&page=1") })
    }

    // MARK: Vary

    @Test("Vary: a request with another value of a varying field misses; Vary: * and 1,000 fields are not stored")
    func vary() async throws {
        let origin = CacheOrigin { request, call in
            (.ok, [(.cacheControl, "max-age=60"), (.vary, "Accept-Language")], "\(request.headerFields[.acceptLanguage] ?? "-") \(call)")
        }
        let client = client(origin, [cache()])
        #expect(try await client.send(get(headers: [.acceptLanguage: "fr"])) == "fr 1")
        #expect(try await client.send(get(headers: [.acceptLanguage: "fr"])) == "fr 1")
        #expect(try await client.send(get(headers: [.acceptLanguage: "de"])) == "de 2")
        #expect(try await client.send(get()) == "- 3")
        #expect(try await client.send(get()) == "- 3")

        origin.respond { _, call in (.ok, [(.cacheControl, "max-age=60"), (.vary, "*")], "\(call)") }
        _ = try await client.send(get("/star"))
        #expect(try await client.send(get("/star")) == "5")

        let thousand = (0..<1000).map { "X-Field-\($0)" }.joined(separator: ", ")
        origin.respond { _, call in (.ok, [(.cacheControl, "max-age=60"), (.vary, thousand)], "\(call)") }
        _ = try await client.send(get("/many"))
        #expect(try await client.send(get("/many")) == "7")
    }

    @Test("Vary on a credential header selects by its digest: other credentials miss, the same one hits, and no stored entry holds the secret")
    func varyOnCredentials() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-vary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory)
        // GitHub's API answers `Vary: Accept, Authorization, Cookie`.
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60"), (.vary, "Accept, Authorization, Cookie, X-API-Key")], "\(call)") }
        let client = client(origin, [cache(store)])
        let alice: RequestHeaders = [.authorization: "Bearer ALICE-SECRET", .cookie: "session=ALICE-COOKIE", HTTPField.Name("X-API-Key")!: "ALICE-KEY"]
        let bob: RequestHeaders = [.authorization: "Bearer BOB-SECRET", .cookie: "session=BOB-COOKIE", HTTPField.Name("X-API-Key")!: "BOB-KEY"]
        #expect(try await client.send(get(headers: alice)) == "1")
        #expect(try await client.send(get(headers: alice)) == "1")
        #expect(try await client.send(get(headers: bob)) == "2")
        #expect(try await client.send(get(headers: bob)) == "2")
        var stored = Data()
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            if let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) { stored += data }
        }
        let text = String(decoding: stored, as: UTF8.self)
        #expect(!text.isEmpty)
        for secret in ["ALICE-SECRET", "ALICE-COOKIE", "ALICE-KEY", "BOB-SECRET", "BOB-COOKIE", "BOB-KEY"] {
            #expect(!text.contains(secret), "the disk store wrote \(secret)")
        }
    }

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

    // MARK: Policies

    @Test("only-if-cached and returnCacheDontLoad answer 504 when nothing is stored, and never reach the network")
    func onlyIfCached() async throws {
        let origin = CacheOrigin { _, _ in (.ok, [(.cacheControl, "max-age=60")], "x") }
        let client = client(origin, [cache()])
        await #expect { try await client.send(get(headers: [.cacheControl: "only-if-cached"])) } throws: { error in
            guard let error = error as? APIError, error.statusCode == 504 else { return false }
            return "\(error)".contains("cache policy")
        }
        var options = RequestOptions()
        options.cachePolicy = .returnCacheDontLoad
        await #expect(throws: APIError.self) { try await client.send(get(options: options)) }
        #expect(origin.count == 0)
        _ = try await client.send(get())
        clock.advance(by: 1_000)
        let stale = try await client.response(for: get(options: options))
        #expect(stale.metrics.cacheOutcome == .stale)
        #expect(origin.count == 1)
    }

    @Test("returnCacheElseLoad serves any age; reloadIgnoringCache goes to the network and stores the answer")
    func policies() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=10")], "\(call)") }
        let client = client(origin, [cache()])
        _ = try await client.send(get())
        clock.advance(by: 100)
        #expect(try await client.send(get(options: RequestOptions(cachePolicy: .returnCacheElseLoad))) == "1")
        #expect(try await client.send(get(options: RequestOptions(cachePolicy: .reloadIgnoringCache))) == "2")
        #expect(try await client.send(get()) == "2")
        #expect(origin.count == 2)
        // A client-wide policy
        let offline = self.client(origin, [cache(policy: .returnCacheElseLoad)])
        #expect(try await offline.send(get("/x")) == "3")
        clock.advance(by: 100)
        #expect(try await offline.send(get("/x")) == "3")
    }

    // MARK: Stale responses (RFC 5861)

    @Test("stale-if-error serves the stored response when the server fails — only when opted in, and never with must-revalidate")
    func staleIfError() async throws {
        for (stale, directive, served) in [(CachingMiddleware.StaleResponses.ifError, "", true), ([], "", false), (.ifError, ", must-revalidate", false)] {
            let origin = CacheOrigin { _, _ in (.ok, [(.cacheControl, "max-age=10, stale-if-error=300\(directive)")], "good") }
            let client = client(origin, [cache(stale: stale)])
            _ = try await client.send(get())
            clock.advance(by: 60)
            origin.respond { _, _ in (.serviceUnavailable, [], "down") }
            if served {
                let response = try await client.response(for: get())
                #expect(response.value == "good")
                #expect(response.metrics.cacheOutcome == .stale)
            } else {
                await #expect(throws: APIError.self) { try await client.send(get()) }
            }
        }
    }

    @Test("stale-if-error also covers a transport error")
    func staleIfErrorOnTransportError() async throws {
        let failing = Locked(false)
        let transport = MiddlewareTestTransport { _, _, _ in
            if failing.current { throw TransportError(.connectionFailed, "refused") }
            var fields = HTTPFields()
            fields[.cacheControl] = "max-age=10, stale-if-error=300"
            return (HTTPResponse(status: .ok, headerFields: fields), HTTPBody("good"))
        }
        let client = MiddlewareFixtures.client(transport, [cache(stale: .ifError)])
        _ = try await client.send(get())
        clock.advance(by: 60)
        failing.withLock { $0 = true }
        #expect(try await client.send(get()) == "good")
    }

    @Test("stale-while-revalidate serves the stale response at once and refreshes the store in the background")
    func staleWhileRevalidate() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=10, stale-while-revalidate=60")], "v\(call)") }
        let store = MemoryCacheStore()
        let client = client(origin, [cache(store, stale: .whileRevalidating)])
        _ = try await client.send(get())
        clock.advance(by: 20)
        let stale = try await client.response(for: get())
        #expect(stale.value == "v1")
        #expect(stale.metrics.cacheOutcome == .stale)
        for _ in 0..<2_000 where origin.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(origin.count == 2)
        var refreshed = ""
        for _ in 0..<2_000 {
            refreshed = try await client.send(get())
            if refreshed == "v2" { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(refreshed == "v2")
        // Outside the window: a plain revalidation.
        clock.advance(by: 500)
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .miss)
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
