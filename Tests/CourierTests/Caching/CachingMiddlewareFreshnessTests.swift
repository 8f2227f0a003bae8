import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("CachingMiddleware: freshness, request directives, policies and stale responses (RFC 9111 §4.2, RFC 5861)")
struct CachingMiddlewareFreshnessTests: CachingTestBed {
    let clock = ManualClock()

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
        for _ in 0..<12_000 where origin.count < 2 { try await Task.sleep(for: .milliseconds(5)) }  // ≥ 60 s under load
        #expect(origin.count == 2)
        var refreshed = ""
        for _ in 0..<12_000 {
            refreshed = try await client.send(get())
            if refreshed == "v2" { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(refreshed == "v2")
        // Outside the window: a plain revalidation.
        clock.advance(by: 500)
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .miss)
    }
}
