import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The cache among the other middleware: authentication before it, signing after it, retries
/// around it.
@Suite("CachingMiddleware in a pipeline")
struct CachingPipelineTests {
    /// A transport that answers what the test says and counts the exchanges.
    private final class Origin: Sendable {
        let calls = Locked(0)
        let respond: @Sendable (HTTPRequest, Int) -> (HTTPResponse.Status, String, String)   // status, Cache-Control, body
        init(_ respond: @escaping @Sendable (HTTPRequest, Int) -> (HTTPResponse.Status, String, String)) { self.respond = respond }
        var transport: MiddlewareTestTransport {
            MiddlewareTestTransport { request, _, _ in
                let call = self.calls.withLock { $0 += 1; return $0 }
                let (status, control, body) = self.respond(request, call)
                var fields = HTTPFields()
                fields[.cacheControl] = control
                return (HTTPResponse(status: status, headerFields: fields), HTTPBody(body))
            }
        }
    }

    @Test("a signing middleware after the cache never runs for a stored response")
    func signingAfterCache() async throws {
        let signatures = Locked(0)
        let signer = MiddlewareTestSpy { request, body, context, next in
            var request = request
            request.headerFields[HTTPField.Name("X-Signature")!] = "sig-\(signatures.withLock { $0 += 1; return $0 })"
            return try await next(request, body, context)
        }
        let origin = Origin { _, call in (.ok, "max-age=60", "v\(call)") }
        let client = MiddlewareFixtures.client(origin.transport, [CachingMiddleware(), signer])
        for _ in 0..<3 { #expect(try await client.send(MiddlewareFixtures.text(.get, "/x")) == "v1") }
        #expect(signatures.current == 1)
        #expect(origin.calls.current == 1)
    }

    @Test("after a 401 and a token refresh the new token is a new key: the old user's stored response is not served")
    func tokenRefresh() async throws {
        let tokens = Locked(["t1", "t2"])
        let provider = ClosureTokenProvider(token: { AccessToken(tokens.current[0]) },
                                            refresh: { _ in _ = tokens.withLock { $0.removeFirst() }; return AccessToken(tokens.current[0]) })
        let origin = Origin { request, call in
            let auth = request.headerFields[.authorization] ?? ""
            if call == 2 { return (.unauthorized, "", "expired") }      // t1 expires on the second exchange
            return (.ok, "private, max-age=60", "\(auth) \(call)")
        }
        let client = MiddlewareFixtures.client(origin.transport, [AuthenticationMiddleware(.bearer(provider)), CachingMiddleware()])
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/me")) == "Bearer t1 1")
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/me")) == "Bearer t1 1")          // hit, no exchange
        // A request that misses (another URL) meets the 401; the refresh swaps the token.
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/other")) == "Bearer t2 3")
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/me")) == "Bearer t2 4")          // t2 is a new key
    }

    @Test("a cache or coalescing middleware above the authentication middleware fails every request, naming the order, instead of sharing one user's responses with another")
    func sharingAboveAuthenticationFails() async throws {
        let provider = ClosureTokenProvider(token: { AccessToken("t1") }, refresh: { _ in AccessToken("t1") })
        let origin = Origin { _, call in (.ok, "private, max-age=60", "\(call)") }
        for middleware in [[CachingMiddleware(), AuthenticationMiddleware(.bearer(provider))] as [any Middleware],
                           [CoalescingMiddleware(), RetryMiddleware(), AuthenticationMiddleware(.bearer(provider))],
                           [CachingMiddleware(), BaseParametersMiddleware([URLQueryItem(name: "pub_ticket", value: "t")], placement: .headers, for: .credentials)]] {
            let client = MiddlewareFixtures.client(origin.transport, middleware)
            let error = await #expect(throws: APIError.self) { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
            #expect(error?.underlyingError is MiddlewareOrderError)
            #expect(error.map { "\($0)" }?.contains("put it after") == true)
        }
        #expect(origin.calls.current == 0)
    }

    @Test("the order check counts only a signed-in user's tokens: an app-wide key below the cache, tokens above it, or coalescing only on request are allowed")
    func orderCheckAllowsSharedCredentials() async throws {
        let provider = ClosureTokenProvider(token: { AccessToken("t1") }, refresh: { _ in AccessToken("t1") })
        let origin = Origin { _, call in (.ok, "private, max-age=60", "\(call)") }
        for middleware in [[CachingMiddleware(), AuthenticationMiddleware(.apiKey("app-key", header: "X-Key"))] as [any Middleware],
                           [AuthenticationMiddleware(.bearer(provider)), CachingMiddleware(), AuthenticationMiddleware(.apiKey("app-key", header: "X-Key"))],
                           [CoalescingMiddleware(scope: .requestsThatAsk), AuthenticationMiddleware(.bearer(provider))]] {
            let client = MiddlewareFixtures.client(origin.transport, middleware)
            _ = try await client.send(MiddlewareFixtures.text(.get, "/me"))
        }
        #expect(origin.calls.current == 3)
    }

    @Test("retries sit outside the cache: a 503 answered by stale-if-error is not retried, a hit is never retried")
    func retriesAroundCache() async throws {
        let failing = Locked(false)
        let origin = Origin { _, call in failing.current ? (.serviceUnavailable, "", "down") : (.ok, "max-age=0, stale-if-error=600", "v\(call)") }
        let clock = ManualClock(now: Date())
        let cache = CachingMiddleware(store: MemoryCacheStore(), staleResponses: .ifError, clock: clock)
        let client = MiddlewareFixtures.client(origin.transport, [RetryMiddleware(clock: ManualClock()), cache])
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/x")) == "v1")
        clock.advance(by: 5)
        failing.withLock { $0 = true }
        let stale = try await client.response(for: MiddlewareFixtures.text(.get, "/x"))
        #expect(stale.value == "v1")
        #expect(stale.metrics.cacheOutcome == .stale)
        #expect(origin.calls.current == 2)     // one failed revalidation, no retry
    }
}
