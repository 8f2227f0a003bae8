import Courier
import CourierTestServer
import CourierURLSession
import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The cookie jar against the real test server, on both transports: the same cookies go out
/// whichever transport carries them.
@Suite("Cookie jar against a real server")
struct CookieJarIntegrationTests {
    /// What `/cookie-jar/echo` answers: every `Cookie` field the request carried.
    private struct CookieFields: Decodable, Sendable { var cookies: [String] }

    private func client(_ kind: TransportKind, _ server: TestServer, jar: CookieJar) -> APIClient {
        kind.client(for: server) { $0.cookieJar = jar }
    }

    private func set(_ lines: String...) -> Request<Data> {
        Request<Data>(path: "/cookie-jar/set", query: lines.map { URLQueryItem(name: "line", value: $0) })
    }

    /// Sets `line` on a redirect to `location`, which answers like `/cookie-jar/echo`.
    private func set(_ line: String, redirectingTo location: String) -> Request<CookieFields> {
        Request<CookieFields>(path: "/cookie-jar/set", query: [URLQueryItem(name: "line", value: line), URLQueryItem(name: "location", value: location)])
    }

    private let echo = Request<CookieFields>(path: "/cookie-jar/echo")

    // FoundationNetworking (Linux) ignores `URLRequest.httpShouldHandleCookies`; these checks
    // failed there until URLSessionTransport sent a jar's requests through a session without a
    // cookie store (the session's own store added its cookies beside the jar's).

    @Test("without a jar: URLSessionTransport keeps cookies in a store of its own, AsyncHTTPClientTransport keeps none",
          arguments: TransportKind.allCases)
    func withoutAJar(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let client = kind.client(for: server)
            _ = try await client.send(Request<Data>(path: "/cookies/set", query: [URLQueryItem(name: "name", value: "session"), URLQueryItem(name: "value", value: "s1")]))
            let echoed = try await client.send(Request<CookieEcho>(path: "/cookies")).cookie
            switch kind {
            case .urlSession: #expect(echoed == "session=s1")
            case .asyncHTTPClient: #expect(echoed == "")
            }
        }
    }

    @Test("a cookie the server sets is sent back on the next request, in one Cookie field", arguments: TransportKind.allCases)
    func roundTrip(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let jar = CookieJar()
            let client = client(kind, server, jar: jar)
            _ = try await client.send(set("sid=abc; Path=/; HttpOnly", "pref=1; Path=/cookie-jar; Max-Age=3600"))
            #expect(try await client.send(echo).cookies == ["pref=1; sid=abc"])
            #expect(jar.cookies.count == 2)
            _ = try await client.send(set("sid=gone; Path=/; Max-Age=0"))
            #expect(try await client.send(echo).cookies == ["pref=1"])
        }
    }

    @Test("without a jar, a Cookie header the request sets reaches the server as the cookies it names", arguments: TransportKind.allCases)
    func cookieHeaderWithoutAJar(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport(),
                                   middleware: [SettingCookieField()])
            let sent = try await client.send(Request<CookieFields>(path: "/cookie-jar/echo", headers: [.cookie: "session=abc; theme=dark"]))
            // One field or one per cookie (AsyncHTTPClient sends the fields swift-http-types split
            // the value into); never "abc, theme=dark" as one cookie's value.
            #expect(sent.cookies.joined(separator: "; ") == "session=abc; theme=dark")
            #expect(try await client.send(Request<CookieFields>(path: "/cookie-jar/echo")).cookies.joined(separator: "; ") == "a=1; b=2")
        }
    }

    @Test("URLSession's own cookie storage stays out: clearing the jar leaves no Cookie field", arguments: TransportKind.allCases)
    func onlyTheJarDecides(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let jar = CookieJar()
            let client = client(kind, server, jar: jar)
            _ = try await client.send(set("sid=abc; Path=/; Max-Age=3600"))
            jar.removeAll()
            #expect(try await client.send(echo).cookies == [])
            jar.setCookie("other=1", for: server.url("/"))
            #expect(try await client.send(echo).cookies == ["other=1"])
        }
    }

    @Test("a URLSession configuration of your own without a cookie store works with the jar too")
    func urlSessionWithoutCookieStore() async throws {
        try await withTestServer { server in
            let configuration = URLSessionTransport.defaultConfiguration()
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            var settings = APIConfiguration(baseURL: server.baseURL)
            let jar = CookieJar()
            settings.cookieJar = jar
            let client = APIClient(configuration: settings, transport: URLSessionTransport(configuration: configuration))
            _ = try await client.send(set("sid=abc; Path=/; Max-Age=3600", "pref=1; Path=/"))
            #expect(try await client.send(echo).cookies == ["sid=abc; pref=1"])
            jar.removeAll()
            #expect(try await client.send(echo).cookies == [])
        }
    }

    @Test("cookies are not sent to another host: 127.0.0.1 and localhost are two hosts", arguments: TransportKind.allCases)
    func otherHost(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let jar = CookieJar()
            let client = client(kind, server, jar: jar)
            let localhost = "http://localhost:\(server.port)"
            _ = try await client.send(set("ip=1; Path=/"))
            _ = try await client.send(Request<Data>(path: RequestPath(verbatim: localhost + "/cookie-jar/set"), query: [.init(name: "line", value: "named=1; Path=/")]))
            #expect(try await client.send(echo).cookies == ["ip=1"])
            #expect(try await client.send(Request<CookieFields>(path: RequestPath(verbatim: localhost + "/cookie-jar/echo"))).cookies == ["named=1"])
            // A Domain naming the other host is refused.
            _ = try await client.send(set("evil=1; Domain=localhost"))
            #expect(!jar.cookies.contains { $0.name == "evil" })
        }
    }

    @Test("Set-Cookie on a redirect is stored and sent on the next hop; a redirect to another host does not carry it", arguments: TransportKind.allCases)
    func redirects(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let jar = CookieJar()
            let client = client(kind, server, jar: jar)
            let sameHost = try await client.send(set("hop=1; Path=/", redirectingTo: "/cookie-jar/echo"))
            #expect(sameHost.cookies == ["hop=1"])
            let elsewhere = "http://localhost:\(server.port)/cookie-jar/echo"
            let otherHost = try await client.send(set("hop2=1; Path=/", redirectingTo: elsewhere))
            #expect(otherHost.cookies == [])
            #expect(jar.cookies.map(\.name).sorted() == ["hop", "hop2"])
        }
    }

    @Test("a response with 1,000 Set-Cookie fields leaves the jar within its per-site limit", arguments: TransportKind.allCases)
    func manyCookies(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let jar = CookieJar()
            let client = client(kind, server, jar: jar)
            _ = try await client.send(Request<Data>(path: "/cookie-jar/many", query: [.init(name: "count", value: "1000"), .init(name: "size", value: "8")]))
            #expect(jar.cookies.count == 180)
            let sent = try await client.send(echo).cookies
            #expect(sent.count == 1)
            #expect(sent.first?.split(separator: ";").count == 180)
        }
    }
}

/// Sets `Cookie` through `HTTPFields`' subscript, as middleware do: swift-http-types splits the
/// value into one field per cookie.
private struct SettingCookieField: Middleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if request.headerFields[.cookie] == nil { request.headerFields[.cookie] = "a=1; b=2" }
        return try await next(request, body, context)
    }
}
