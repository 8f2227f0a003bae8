import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The cache and the client's cookie jar: the jar adds `Cookie` below the cache, and a response
/// stored for one cookie session must never answer another's (`GET /me` with
/// `private, max-age=600` and no `Vary: Cookie`, as many servers send it).
@Suite("CachingMiddleware and the cookie jar's sessions")
struct CachingCookieSessionTests {
    private static let site = URL(string: "https://api.example.com/")!
    private let me = MiddlewareFixtures.text(.get, "/me")

    /// A client with `jar` and a cache, over a stub whose `/me` answers with the profile of the
    /// user the `session` cookie names.
    private func client(jar: CookieJar, below: [any Middleware] = []) -> (APIClient, StubTransport) {
        let stub = StubTransport()
        stub.on(.get, "/me") { recorded in
            let cookie = recorded.headers[.cookie] ?? ""
            let user = cookie.contains("session=alice") ? "alice" : cookie.contains("session=bob") ? "bob" : "guest"
            return StubResponse(status: 200, headers: [.cacheControl: "private, max-age=600"], body: Data("profile of \(user)".utf8))
        }
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.cookieJar = jar
        return (APIClient(configuration: configuration, transport: stub, middleware: [CachingMiddleware() as any Middleware] + below), stub)
    }

    private func signIn(_ user: String, _ jar: CookieJar) {
        jar.setCookie("session=\(user); Path=/", for: Self.site)
    }

    @Test("A reads /me, logs out with jar.removeAll(), B signs in: B's /me goes to the network and gets B's profile; A's entry stays A's")
    func jarSessionsDoNotShare() async throws {
        let jar = CookieJar()
        let (client, stub) = client(jar: jar)
        signIn("alice", jar)
        #expect(try await client.send(me) == "profile of alice")
        let again = try await client.response(for: me)
        #expect(again.value == "profile of alice" && again.metrics.cacheOutcome == .hit)
        jar.removeAll()
        signIn("bob", jar)
        let bob = try await client.response(for: me)
        #expect(bob.value == "profile of bob")
        #expect(bob.metrics.cacheOutcome == .miss)
        #expect(stub.requests.count == 2)
        // A signs in again with the same session: the entry stored for that session serves it.
        jar.removeAll()
        signIn("alice", jar)
        let alice = try await client.response(for: me)
        #expect(alice.value == "profile of alice" && alice.metrics.cacheOutcome == .hit)
    }

    @Test("after a logout (jar.removeAll()) a request without cookies is not answered with the signed-in user's stored response")
    func logoutLeavesAGuest() async throws {
        let jar = CookieJar()
        let (client, _) = client(jar: jar)
        signIn("alice", jar)
        #expect(try await client.send(me) == "profile of alice")
        jar.removeAll()
        #expect(try await client.send(me) == "profile of guest")
    }

    @Test("a session that changes while the request is under way (between the cache's look-up and the wire) is not stored under the old session's key")
    func sessionChangedMidRequestIsNotStored() async throws {
        let jar = CookieJar()
        let switched = Locked(false)
        // Below the cache: the jar switches to bob once, after the cache looked in its store and
        // before the jar adds its cookies (a login racing a request).
        let swap = MiddlewareTestSpy { request, body, context, next in
            if switched.withLock({ done in defer { done = true }; return !done }) {
                jar.removeAll()
                jar.setCookie("session=bob; Path=/", for: CachingCookieSessionTests.site)
            }
            return try await next(request, body, context)
        }
        let (client, _) = client(jar: jar, below: [swap])
        signIn("alice", jar)
        #expect(try await client.send(me) == "profile of bob")                 // what went out
        jar.removeAll()
        signIn("alice", jar)
        #expect(try await client.send(me) == "profile of alice")               // not bob's, stored under alice's key
    }

    @Test("the jar's cookies enter the key as a digest: a disk store never writes them")
    func jarCookiesAreDigests() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-jar-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory)
        let jar = CookieJar()
        let stub = StubTransport()
        stub.on(.get, "/me", StubResponse(status: 200, headers: [.cacheControl: "private, max-age=600"], body: Data("me".utf8)))
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.cookieJar = jar
        let client = APIClient(configuration: configuration, transport: stub, middleware: [CachingMiddleware(store: store)])
        jar.setCookie("session=ALICE-SESSION-VALUE; Path=/", for: Self.site)
        _ = try await client.send(me)
        #expect(try await client.response(for: me).metrics.cacheOutcome == .hit)
        var written = Data()
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            if let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) { written += data }
        }
        #expect(!written.isEmpty)
        #expect(!String(decoding: written, as: UTF8.self).contains("ALICE-SESSION-VALUE"))
    }

    @Test("a response to a request a transport sent with cookies of its own store (URLSession's, without a jar) is not stored; one sent without is")
    func transportStoreCookiesAreNotStored() async throws {
        let carriesCookies = Locked(true)
        let calls = Locked(0)
        // A transport with a cookie store of its own, which says so as URLSessionTransport does.
        let transport = MiddlewareTestTransport { _, _, context in
            let call = calls.withLock { $0 += 1; return $0 }
            if carriesCookies.current {
                for watch in context.cookieWatches { watch.transportAddedStoreCookies() }
            }
            return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "private, max-age=600"]), HTTPBody("v\(call)"))
        }
        let client = MiddlewareFixtures.client(transport, [CachingMiddleware()])
        #expect(try await client.send(me) == "v1")
        #expect(try await client.send(me) == "v2")                             // not stored
        carriesCookies.withLock { $0 = false }
        #expect(try await client.send(me) == "v3")
        #expect(try await client.send(me) == "v3")                             // stored
    }
}
