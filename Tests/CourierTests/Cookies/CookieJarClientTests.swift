import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import OpenAPIRuntime
import Testing

@Suite("Cookie jar in the client: every hop, the request's own Cookie header, redaction")
struct CookieJarClientTests {
    private func setCookies(_ lines: String..., status: Int = 200, location: String? = nil) -> StubResponse {
        var fields = HTTPFields()
        for line in lines { fields.append(HTTPField(name: .setCookie, value: line)) }
        if let location { fields[.location] = location }
        return StubResponse(status: status, headers: fields, body: Data("{}".utf8))
    }

    private func client(jar: CookieJar? = CookieJar(), logger: Logger? = nil, middleware: [any Middleware] = []) -> (APIClient, StubTransport) {
        let stub = StubTransport()
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.cookieJar = jar
        if let logger { configuration.logger = logger }
        return (APIClient(configuration: configuration, transport: stub, middleware: middleware), stub)
    }

    @Test("a cookie set by one response is sent on the next request; without a jar it is not")
    func roundTrip() async throws {
        for withJar in [true, false] {
            let (client, stub) = client(jar: withJar ? CookieJar() : nil)
            stub.on(.get, "/login", setCookies("sid=abc; Path=/; HttpOnly"))
            stub.on(.get, "/me", .text("me"))
            _ = try await client.data(for: Request<Data>(path: "/login"))
            _ = try await client.data(for: Request<Data>(path: "/me"))
            #expect(stub.requests[1].headers[.cookie] == (withJar ? "sid=abc" : nil))
        }
    }

    @Test("Set-Cookie on a redirect is stored, and each hop gets the cookies for its own URL")
    func redirectHops() async throws {
        let jar = CookieJar()
        let (client, stub) = client(jar: jar)
        stub.on(.get, "/start", setCookies("hop=1; Path=/", "api=1; Domain=example.com; Path=/", status: 302, location: "https://login.example.net/auth"))
        stub.on(.get, "/auth", setCookies("idp=1", status: 302, location: "https://www.example.com/done"))
        stub.on(.get, "/done", .text("ok"))
        _ = try await client.data(for: Request<Data>(path: "/start"))
        let hops = stub.requests
        #expect(hops.map(\.request.authority) == ["api.example.com", "login.example.net", "www.example.com"])
        #expect(hops[0].headers[.cookie] == nil)
        #expect(hops[1].headers[.cookie] == nil)            // another site: none of api.example.com's cookies
        #expect(hops[2].headers[.cookie] == "api=1")         // the domain cookie set on hop 1; hop is host-only
        #expect(jar.cookies.map(\.name).sorted() == ["api", "hop", "idp"])
        #expect(jar.cookies(for: URL(string: "https://login.example.net/")!).map(\.name) == ["idp"])
    }

    @Test("a Cookie header the request sets is sent first; the jar adds its cookies except names already set")
    func ownHeaderCombines() async throws {
        let jar = CookieJar()
        jar.setCookie("sid=jar", for: URL(string: "https://api.example.com/")!)
        jar.setCookie("theme=dark", for: URL(string: "https://api.example.com/")!)
        let (client, stub) = client(jar: jar)
        stub.on(.get, "/me", .text("me"))
        _ = try await client.data(for: Request<Data>(path: "/me", headers: [.cookie: "sid=mine; extra=1"]))
        let fields = stub.requests[0].headers.filter { $0.name == .cookie }.map(\.value)
        #expect(fields == ["sid=mine; extra=1; theme=dark"])
        // The request's own cookie is not stored in the jar.
        #expect(jar.cookies.first { $0.name == "sid" }?.value == "jar")
    }

    @Test("the request's own Cookie header is dropped when a redirect leaves the origin; the jar's rules still apply there")
    func ownHeaderAcrossOrigins() async throws {
        let jar = CookieJar()
        jar.setCookie("other=1", for: URL(string: "https://cdn.example.net/")!)
        let (client, stub) = client(jar: jar)
        stub.on(.get, "/file", .text("x"))
        stub.on(.get, "/start", setCookies(status: 302, location: "https://cdn.example.net/file"))
        _ = try await client.data(for: Request<Data>(path: "/start", headers: [.cookie: "mine=secret"]))
        #expect(stub.requests[0].headers[.cookie] == "mine=secret")
        #expect(stub.requests[1].headers[.cookie] == "other=1")
    }

    @Test("the transport is told the jar decides (RequestContext.usesCookieJar), only when a jar is set")
    func contextFlag() async throws {
        for withJar in [true, false] {
            let seen = ContextSpy()
            var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
            configuration.cookieJar = withJar ? CookieJar() : nil
            let client = APIClient(configuration: configuration, transport: seen)
            _ = try await client.data(for: Request<Data>(path: "/x"))
            #expect(seen.flags == [withJar])
        }
    }

    @Test("retries go through the jar again: a cookie set by the failed attempt is sent on the retry")
    func retries() async throws {
        let (client, stub) = client(middleware: [RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, initialDelay: .zero), clock: ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000)))])
        stub.on(.get, "/flaky", [setCookies("attempt=1", status: 503), .text("ok")])
        _ = try await client.data(for: Request<Data>(path: "/flaky"))
        #expect(stub.requests.count == 2)
        #expect(stub.requests[1].headers[.cookie] == "attempt=1")
    }

    @Test("cookie values never reach the logs: Set-Cookie and Cookie are redacted, refusals name the cookie only")
    func logsRedacted() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        let (client, stub) = client(logger: logger, middleware: [LoggingMiddleware(logger: logger, level: .info, style: .verbose)])
        stub.on(.get, "/login", setCookies("sid=S3CR3T-SESSION", "bad=S3CR3T-REFUSED; Domain=com"))
        stub.on(.get, "/me", .text("me"))
        _ = try await client.data(for: Request<Data>(path: "/login"))
        _ = try await client.data(for: Request<Data>(path: "/me", headers: [.cookie: "own=S3CR3T-OWN"]))
        let text = handler.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(!text.contains("S3CR3T"))
        #expect(text.contains("Cookie refused: bad from api.example.com: Domain=com is a public suffix"))
    }

    @Test("a refused cookie's Domain reaches the log escaped: a bidi override cannot reorder the line")
    func refusedDomainEscaped() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        let (client, stub) = client(logger: logger)
        stub.on(.get, "/login", setCookies("a=1; Domain=\u{202E}moc.elpmaxe"))
        _ = try await client.data(for: Request<Data>(path: "/login"))
        let text = handler.entries.map { "\($0.message)" }.joined(separator: "\n")
        #expect(text.contains("Cookie refused: a from api.example.com"))
        #expect(!text.contains("\u{202E}"))
    }

    @Test("cookie values never reach a cassette: the jar's Cookie header and Set-Cookie are redacted")
    func cassetteRedacted() async throws {
        let stub = StubTransport()
        stub.on(.get, "/login", setCookies("sid=S3CR3T-SESSION; Path=/"))
        stub.on(.get, "/me", .text("me"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cookie-cassette-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let recorder = RecordingTransport(stub, file: file)
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.cookieJar = CookieJar()
        let client = APIClient(configuration: configuration, transport: recorder)
        _ = try await client.data(for: Request<Data>(path: "/login"))
        _ = try await client.data(for: Request<Data>(path: "/me"))
        #expect(stub.requests[1].headers[.cookie] == "sid=S3CR3T-SESSION")   // it was sent…
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(!written.contains("S3CR3T"))                                   // …and not recorded
        #expect(recorder.recorded.exchanges[1].request.headerFields[.cookie] == Redaction.placeholder)
    }
}

/// A transport that records whether each request's context said the jar decides.
private final class ContextSpy: Transport {
    private let seen = LockedFlags()
    var flags: [Bool] { seen.values }
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        seen.append(context.usesCookieJar)
        return (HTTPResponse(status: .ok), HTTPBody())
    }
}

private final class LockedFlags: @unchecked Sendable {   // every access holds `lock`
    private let lock = NSLock()
    private var flags: [Bool] = []
    var values: [Bool] { lock.withLock { flags } }
    func append(_ flag: Bool) { lock.withLock { flags.append(flag) } }
}
