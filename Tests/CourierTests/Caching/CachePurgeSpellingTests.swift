import Courier
import Foundation
import HTTPTypes
import Testing
import CourierTesting

/// The purge helpers (`removeEntries(for:)`, `removeEntries(withURLPrefix:)`) find the entries
/// the middleware stored under the request's own spelling of a URL, however the app writes it:
/// host case, the scheme's default port written out, percent-encoded path values.
@Suite("HTTPCacheStore purge helpers: one spelling of a URL on both sides")
struct CachePurgeSpellingTests: CachingTestBed {
    let clock = ManualClock()

    /// A client of `https://API.example.com:443` (the host in capitals, the default port written
    /// out, as a configuration may hold it) whose cache keeps its entries in `store`.
    private func client(_ origin: CacheOrigin, store: any HTTPCacheStore) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://API.example.com:443")!), transport: origin.transport,
                  middleware: [cache(store)])
    }

    /// `GET /users/<name>`, the name percent-encoded as a path segment (`Jörg` → `J%C3%B6rg`).
    private func user(_ name: String) -> Request<String> {
        MiddlewareFixtures.text(.get, "/users/\(name)")
    }

    /// An origin whose every response is fresh for ten minutes, numbered by call.
    private func countingOrigin() -> CacheOrigin {
        CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=600")], "v\(call)") }
    }

    /// The URL as an app builds it from its parts: `URLComponents` percent-encodes the path.
    private static func url(host: String, port: Int? = nil, path: String) throws -> URL {
        var components = URLComponents()
        components.scheme = "https"
        components.host = host
        components.port = port
        components.path = path
        return try #require(components.url)
    }

    @Test("removeEntries(for:) given https://api.example.com/users/Jörg removes the entry the middleware stored for https://API.example.com:443/users/J%C3%B6rg")
    func removeByURLAsTheAppWritesIt() async throws {
        let origin = countingOrigin()
        let store = MemoryCacheStore()
        let client = client(origin, store: store)
        #expect(try await client.send(user("Jörg")) == "v1")
        #expect(try await client.send(user("Jörg")) == "v1")                // stored
        #expect(origin.requests.first?.path == "/users/J%C3%B6rg")
        let written = try Self.url(host: "api.example.com", path: "/users/Jörg")
        await store.removeEntries(for: written)
        #expect(try await client.send(user("Jörg")) == "v2")                // removed: asked again
    }

    @Test("every spelling of the same URL removes the entry",
          arguments: [
              "https://api.example.com/users/J%C3%B6rg",                      // host case, no default port
              "https://api.example.com:443/users/J%c3%b6rg",                  // escapes in lower case
              "HTTPS://Api.Example.COM/users/J%C3%B6rg",                      // scheme and host in capitals
              "https://api.example.com/users/J%C3%B6rg#profile",              // a fragment no request sends
              "https://api.example.com/%75sers/J%C3%B6rg",                    // an unreserved letter escaped (%75 = u)
              "https://API.example.com:443/users/J%C3%B6rg",                  // the middleware's own spelling
          ])
    func everySpellingRemoves(_ spelling: String) async throws {
        let origin = countingOrigin()
        let store = MemoryCacheStore()
        let client = client(origin, store: store)
        #expect(try await client.send(user("Jörg")) == "v1")
        let written = try #require(URL(string: spelling))
        await store.removeEntries(for: written)
        #expect(try await client.send(user("Jörg")) == "v2")
    }

    @Test("a URL that names another resource removes nothing: an escaped slash is not a slash")
    func anotherResourceStays() async throws {
        let origin = countingOrigin()
        let store = MemoryCacheStore()
        let client = client(origin, store: store)
        #expect(try await client.send(user("a/b")) == "v1")                 // sent as /users/a%2Fb
        #expect(origin.requests.first?.path == "/users/a%2Fb")
        let other = try #require(URL(string: "https://api.example.com/users/a/b"))
        await store.removeEntries(for: other)
        #expect(try await client.send(user("a/b")) == "v1")                // still stored
    }

    @Test("removeEntries(withURLPrefix:) compares in the same spelling: a prefix in lower case, without the port, the name unencoded")
    func removeByPrefixAsTheAppWritesIt() async throws {
        let origin = countingOrigin()
        let store = MemoryCacheStore()
        let client = client(origin, store: store)
        #expect(try await client.send(user("Jörg")) == "v1")
        #expect(try await client.send(user("Zoë")) == "v2")
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/teams/1")) == "v3")
        await store.removeEntries(withURLPrefix: "https://api.example.com/users/Jö")
        #expect(try await client.send(user("Jörg")) == "v4")                // removed
        #expect(try await client.send(user("Zoë")) == "v2")                 // not under the prefix
        await store.removeEntries(withURLPrefix: "https://api.example.com:443/users/")
        #expect(try await client.send(user("Zoë")) == "v5")                 // removed
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/teams/1")) == "v3")
    }
}
