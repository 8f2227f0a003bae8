@testable import Courier
import Foundation
import HTTPTypes
import Testing
import CourierTesting

@Suite("CacheURL: the one spelling of a URL in cache keys and purges")
struct CacheURLTests: CachingTestBed {
    let clock = ManualClock()

    @Test("equivalent spellings (RFC 3986 §6.2.2–6.2.3) become one",
          arguments: [
              ("https://API.Example.com:443/users/J%C3%B6rg", "https://api.example.com/users/J%C3%B6rg"),
              ("HTTP://api.example.com:80/a", "http://api.example.com/a"),
              ("https://api.example.com:/a", "https://api.example.com/a"),
              ("https://api.example.com", "https://api.example.com/"),
              ("https://api.example.com?q=1", "https://api.example.com/?q=1"),
              ("https://api.example.com/users/Jörg", "https://api.example.com/users/J%C3%B6rg"),
              ("https://api.example.com/users/j%c3%b6rg", "https://api.example.com/users/j%C3%B6rg"),
              ("https://api.example.com/%7Euser/%41%2d%5F", "https://api.example.com/~user/A-_"),
              ("https://api.example.com/a b?q=x y", "https://api.example.com/a%20b?q=x%20y"),
              ("https://api.example.com/a#section", "https://api.example.com/a"),
              ("https://[::1]:443/a", "https://[::1]/a"),
              ("https://[FE80::1]:8443/a", "https://[fe80::1]:8443/a"),
          ])
    func equivalentSpellings(_ written: String, _ expected: String) {
        #expect(CacheURL.normalised(written) == expected)
    }

    @Test("spellings of different resources stay apart; a URL already in its spelling comes back unchanged",
          arguments: [
              "https://api.example.com/users/a%2Fb",        // an escaped slash is no slash
              "https://api.example.com/search?q=a+b",       // `+` is the server's to read
              "https://api.example.com/search?b=2&a=1",     // the query's order too
              "https://api.example.com:8443/a",             // not the default port
              "http://api.example.com:443/a",               // 443 is not http's default
              "https://api.example.com/a?sig=hmac-sha256:00ff",
              "https://user@api.example.com/a",
              "not a url",
          ])
    func unchanged(_ written: String) {
        #expect(CacheURL.normalised(written) == written)
    }

    @Test("a prefix keeps its end: no / after a host, a cut escape kept as written")
    func prefixes() {
        #expect(CacheURL.normalised("https://API.example.co", completingPath: false) == "https://api.example.co")
        #expect(CacheURL.normalised("https://api.example.com:443", completingPath: false) == "https://api.example.com")
        #expect(CacheURL.normalised("https://api.example.com/users/J%C3%B", completingPath: false) == "https://api.example.com/users/J%C3%B")
        #expect(CacheURL.normalised("https://api.example.com/users/Jö", completingPath: false) == "https://api.example.com/users/J%C3%B6")
    }

    @Test("two clients that spell one base URL differently share the entries of one namespace")
    func spellingsShareEntries() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=600")], "v\(call)") }
        let store = MemoryCacheStore()
        let capitals = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://API.example.com:443")!),
                                 transport: origin.transport, middleware: [cache(store)])
        let plain = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                              transport: origin.transport, middleware: [cache(store)])
        #expect(try await capitals.send(MiddlewareFixtures.text(.get, "/users/Jörg")) == "v1")
        #expect(try await plain.send(MiddlewareFixtures.text(.get, "/users/Jörg")) == "v1")
        let keys = Locked<[HTTPCacheKey]>([])
        await store.removeEntries { key in keys.withLock { $0.append(key) }; return false }
        #expect(keys.current.map(\.url) == ["https://api.example.com/users/J%C3%B6rg"])
    }
}
