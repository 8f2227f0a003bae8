import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// The cache and cookie sessions against a real server, over both transports: a response
/// stored for one session never answers another's, whether the client's jar or the
/// transport's own store adds the cookies below the cache.
@Suite("HTTP cache and cookie sessions against a real server")
struct HTTPCacheCookieSessionTests {
    typealias Fixture = HTTPCacheIntegrationTests.Fixture

    private func withFixture(_ kind: TransportKind, _ name: String = #function, _ body: (Fixture) async throws -> Void) async throws {
        try await withTestServer { (server: TestServer) async throws in
            try await body(Fixture(server: server, kind: kind, key: "\(kind.rawValue)-\(name)"))
        }
    }

    /// A sign-in: the server answers `Set-Cookie: session=<user>; Path=/`.
    private func signIn(_ user: String) -> Request<Data> {
        Request<Data>(path: "/cookies/set", query: [URLQueryItem(name: "name", value: "session"), URLQueryItem(name: "value", value: user)])
    }

    /// `GET /me` as the issue has it: `private, max-age=600`, no `Vary: Cookie`.
    private let profile = ["cc": "private, max-age=600"]

    @Test("with the client's jar: A reads a private resource, logs out (jar.removeAll()), B signs in: B's read goes to the server",
          arguments: TransportKind.allCases)
    func jarSessions(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let jar = CookieJar()
            let client = fixture.client([fixture.cache()]) { $0.cookieJar = jar }
            _ = try await client.send(signIn("alice"))
            #expect(try await client.send(fixture.resource(profile)).n == "1")
            let again = try await client.response(for: fixture.resource(profile))
            #expect(again.value.n == "1" && again.metrics.cacheOutcome == .hit)      // A's own second read
            jar.removeAll()
            _ = try await client.send(signIn("bob"))
            let bob = try await client.response(for: fixture.resource(profile))
            #expect(bob.value.n == "2" && bob.metrics.cacheOutcome == .miss)
            #expect(try await fixture.stats().full == 2)
        }
    }

    @Test("without a jar: a response to a request URLSessionTransport sent with cookies of its own store is not stored; AsyncHTTPClientTransport sends none, so its response is",
          arguments: TransportKind.allCases)
    func transportCookieStore(_ kind: TransportKind) async throws {
        try await withFixture(kind) { fixture in
            let client = fixture.client([fixture.cache()])
            _ = try await client.send(signIn("alice"))
            #expect(try await client.send(fixture.resource(profile)).n == "1")
            let second = try await client.response(for: fixture.resource(profile))
            switch kind {
            case .urlSession:
                // The session's store added `session=alice` below the cache, out of its key's sight.
                #expect(second.value.n == "2" && second.metrics.cacheOutcome == .miss)
            case .asyncHTTPClient:
                #expect(second.value.n == "1" && second.metrics.cacheOutcome == .hit)
            }
        }
    }
}
