import Courier
import CourierTestServer
@testable import CourierURLSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Without a `CookieJar`, `URLSessionTransport` keeps cookies in its configuration's storage.
/// On Linux it stores them itself (FoundationNetworking's own handling parses every header line
/// of every response): what it keeps must be what FoundationNetworking would have kept.
@Suite("URLSessionTransport's cookie storage")
struct URLSessionCookieStorageTests {
    /// Set-Cookie lines sent in one response: expiry dates with commas (folded by
    /// `HTTPURLResponse` into one value with the others), paths, flags, a deletion.
    static let lines = [
        "a=1; Path=/",
        "b=2; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/",
        "c=3; Path=/elsewhere",
        "d=4; Max-Age=3600; HttpOnly",
        "e=5; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
    ]

    private static func setURL(_ server: TestServer) throws -> URL {
        var components = try #require(URLComponents(url: server.url("/cookie-jar/set"), resolvingAgainstBaseURL: false))
        components.queryItems = lines.map { URLQueryItem(name: "line", value: $0) }
        return try #require(components.url)
    }

    /// The cookies of `storage`, each as one comparable line.
    private static func describe(_ storage: HTTPCookieStorage) -> [String] {
        let now = Date()
        return (storage.cookies ?? []).map { cookie in
            let expiry = cookie.expiresDate.map { date in abs(date.timeIntervalSince(now) - 3600) < 600 ? "in an hour" : "\(date.timeIntervalSince1970)" } ?? "session"
            return "\(cookie.name)=\(cookie.value) domain=\(cookie.domain) path=\(cookie.path) httpOnly=\(cookie.isHTTPOnly) expires=\(expiry)"
        }.sorted()
    }

    @Test("the transport keeps the cookies the session's own handling keeps, and sends them back")
    func sameCookiesAsTheSession() async throws {
        try await withTestServer { server in
            let url = try Self.setURL(server)
            // FoundationNetworking's (or CFNetwork's) own handling, in a session of its own.
            let plainConfiguration = URLSessionTransport.defaultConfiguration()
            let plainStorage = try #require(plainConfiguration.httpCookieStorage)
            let plain = URLSession(configuration: plainConfiguration)
            _ = try await plain.data(for: URLRequest(url: url))
            plain.finishTasksAndInvalidate()

            let configuration = URLSessionTransport.defaultConfiguration()
            let storage = try #require(configuration.httpCookieStorage)
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: URLSessionTransport(configuration: configuration))
            _ = try await client.send(Request<Data>(path: "/cookie-jar/set", query: Self.lines.map { URLQueryItem(name: "line", value: $0) }))

            let kept = Self.describe(storage)
            #expect(kept == Self.describe(plainStorage))
            #expect(kept.map { String($0.prefix(3)) } == ["a=1", "b=2", "c=3", "d=4"])
            struct Echo: Decodable { var cookies: [String] }
            let echoed = try await client.send(Request<Echo>(path: "/cookie-jar/echo")).cookies
            #expect(echoed.count == 1)
            // The request side is the session's own (its storage picks the cookies; on Linux it
            // sends `c`, whose path is elsewhere, too): the kept cookies go out, the expired one not.
            let sent = Set(echoed.first?.components(separatedBy: "; ") ?? [])
            #expect(sent.isSuperset(of: ["a=1", "b=2", "d=4"]))
            #expect(!sent.contains("e=5"))
        }
    }

    @Test("cookies of a redirect whose Location the session cannot use are kept too")
    func unusableRedirect() async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: URLSessionTransport())
            // FoundationNetworking tells the delegate nothing of such a 3xx; the transport takes
            // its head from the finished task.
            _ = try? await client.send(Request<Data>(path: "/cookie-jar/set", query: [URLQueryItem(name: "line", value: "r=1; Path=/"),
                                                                                   URLQueryItem(name: "location", value: "http://[bad")]))
            #expect(try await client.send(Request<CookieEcho>(path: "/cookies")).cookie.contains("r=1"))
        }
    }

    @Test("a configuration that accepts no cookies keeps none")
    func acceptsNone() async throws {
        try await withTestServer { server in
            let configuration = URLSessionTransport.defaultConfiguration()
            configuration.httpCookieAcceptPolicy = .never
            let storage = try #require(configuration.httpCookieStorage)
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: URLSessionTransport(configuration: configuration))
            _ = try await client.send(Request<Data>(path: "/cookie-jar/set", query: Self.lines.map { URLQueryItem(name: "line", value: $0) }))
            #expect(storage.cookies?.isEmpty ?? true)
        }
    }
}
