import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

/// A signed-in user's fields that `BaseParametersMiddleware(for: .credentials)` puts in the
/// query or the body are secrets, as an API key in the query is: below the middleware they are
/// digests in cache keys and `<redacted>` in logs and errors.
@Suite("BaseParametersMiddleware: credentials in the query or the body are secret")
struct BaseParametersCredentialsTests {
    private static let secret = "S3CR3T-SID"

    private func logger() -> (Logger, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .trace
        return (logger, handler)
    }

    private func text(of handler: InMemoryLogHandler) -> String {
        handler.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
    }

    @Test("sid from BaseParametersMiddleware(.query, .credentials), computed per request, is a digest in the cache key and redacted in logs and errors below it")
    func queryCredentialsBelowAreSecret() async throws {
        let (logger, handler) = logger()
        let store = MemoryCacheStore()
        let stub = StubTransport()
        stub.on(.get, "/me", StubResponse(status: 200, headers: [.cacheControl: "private, max-age=60"], body: Data("me".utf8)))
        // A server that echoes the query in a redirect to plain http, which the client refuses.
        stub.on(.get, "/away", StubResponse(status: 302, headers: [.location: "http://api.example.com/v1/me?sid=\(Self.secret)"]))
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.logger = logger
        let client = APIClient(configuration: configuration, transport: stub, middleware: [
            BaseParametersMiddleware(placement: .query, for: .credentials) { [URLQueryItem(name: "sid", value: Self.secret)] },
            LoggingMiddleware(level: .info, style: .verbose),
            CachingMiddleware(store: store),
        ])
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/me")) == "me")
        #expect(stub.requests.first?.target == "/v1/me?sid=\(Self.secret)")      // sent as it is

        let keys = Locked<[HTTPCacheKey]>([])
        await store.removeEntries { key in keys.withLock { $0.append(key) }; return false }
        #expect(keys.current.count == 1)
        #expect(keys.current.allSatisfy { !$0.text.contains(Self.secret) && $0.url.contains("sid=hmac-sha256:") })

        let error = await #expect(throws: APIError.self) { try await client.send(MiddlewareFixtures.text(.get, "/away")) }
        let description = try #require(error.map { "\($0)" })
        #expect(description.contains("sid=\(Redaction.placeholder)"))
        #expect(!description.contains(Self.secret))

        let logged = text(of: handler)
        #expect(logged.contains("sid=\(Redaction.placeholder)"))
        #expect(!logged.contains(Self.secret))
    }

    @Test("sid from BaseParametersMiddleware(.body, .credentials) merged into a form body is redacted in the request log")
    func bodyCredentialsAreRedactedInLogs() async throws {
        let (logger, handler) = logger()
        let stub = StubTransport()
        stub.on(.post, "/login", .text("ok"))
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.logger = logger
        let client = APIClient(configuration: configuration, transport: stub, middleware: [
            BaseParametersMiddleware(placement: .body, for: .credentials) { [URLQueryItem(name: "sid", value: Self.secret)] },
            LoggingMiddleware(level: .info, style: .verbose),
        ])
        _ = try await client.send(MiddlewareFixtures.text(.post, "/login", body: .form([("user", "ada")])))
        #expect(stub.requests.first?.bodyText == "user=ada&sid=\(Self.secret)")   // sent as it is
        #expect(!text(of: handler).contains(Self.secret))
    }

    @Test("fixed credentials in the query are secret to the whole client: a next-page target that echoes them is redacted in the error")
    func fixedCredentialNamesAreTheClients() async throws {
        let stub = StubTransport()
        stub.on(.get, "/page", .status(500, message: "down"))
        let client = MiddlewareFixtures.client(stub, [
            BaseParametersMiddleware([URLQueryItem(name: "sid", value: Self.secret)], placement: .query, for: .credentials),
        ])
        // A target taken from a server's next-page link, which echoed the session's query.
        let echoed = MiddlewareFixtures.text(.get, RequestPath(verbatim: "/page?sid=\(Self.secret)&page=2"))
        let error = await #expect(throws: APIError.self) { try await client.send(echoed) }
        #expect(stub.requests.first?.target == "/v1/page?sid=\(Self.secret)&page=2")
        let description = try #require(error.map { "\($0)" })
        #expect(!description.contains(Self.secret))
        #expect(client.configuration.sensitiveQueryNames.contains("sid"))
    }
}
