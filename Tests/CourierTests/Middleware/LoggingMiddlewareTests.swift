import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import OpenAPIRuntime
import Testing

@Suite struct LoggingMiddlewareTests {
    private typealias F = MiddlewareFixtures

    private func logger(_ level: Logger.Level) -> (Logger, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = level
        return (logger, handler)
    }

    private func allText(_ handler: InMemoryLogHandler) -> String {
        handler.entries.map { entry in
            "\(entry.message) " + entry.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }.joined(separator: "\n")
    }

    @Test func logsOneInfoLinePerExchangeWithStatusDurationAndSize() async throws {
        let (logger, handler) = logger(.info)
        let stub = StubTransport()
        stub.on(.get, "/users", .text("hello"))
        let client = F.client(stub, [LoggingMiddleware(logger: logger, level: .info)])
        _ = try await client.send(F.text(.get, "/users").query("page", "2"))
        let entries = handler.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.level == .info)
        #expect("\(entry.message)".hasPrefix("GET https://api.example.com/v1/users?page=2 → 200 ("))
        #expect(entry.metadata["http.response.body.size"] == "5")
        #expect(entry.metadata["http.response.status_code"] == "200")
        #expect(entry.metadata["http.request.method"] == "GET")
        #expect(entry.metadata["courier.duration_ms"] != nil)
    }

    @Test("the usual line carries exactly its six metadata keys, with the line's own figures")
    func theUsualLineCarriesExactlyItsMetadata() async throws {
        let (logger, handler) = logger(.info)
        let stub = StubTransport()
        stub.on(.get, "/users", .text("hello"))
        stub.on(.get, "/teams", .text("a longer body"))
        let client = F.client(stub, [LoggingMiddleware(logger: logger, level: .info)])
        _ = try await client.send(F.text(.get, "/users"))
        _ = try await client.send(F.text(.get, "/teams").query("page", "3"))
        let entries = handler.entries
        try #require(entries.count == 2)
        let keys: Set<String> = ["http.request.method", "url.full", "courier.operation", "http.response.status_code",
                                 "courier.duration_ms", "http.response.body.size"]
        for entry in entries { #expect(Set(entry.metadata.keys) == keys) }
        // Each line has its own values: the second does not show the first's.
        #expect(entries[0].metadata["url.full"] == "https://api.example.com/v1/users")
        #expect(entries[1].metadata["url.full"] == "https://api.example.com/v1/teams?page=3")
        #expect(entries[0].metadata["http.response.body.size"] == "5")
        #expect(entries[1].metadata["http.response.body.size"] == "13")
        #expect(entries[0].metadata["courier.operation"] != nil)
        #expect(entries[1].metadata["courier.duration_ms"].map { "\($0)" }.flatMap(Int.init) != nil)
        #expect("\(entries[1].message)".hasSuffix(" ms, 13 bytes)"))
    }

    @Test("a retry's line adds its attempt number to the same keys")
    func aRetrysLineAddsItsAttempt() async throws {
        let (logger, handler) = logger(.info)
        let stub = StubTransport()
        stub.on(.get, "/items", [.status(503), .text("ok")])
        let retry = RetryMiddleware(policy: RetryPolicy(jitter: .none), budget: .unlimited, clock: ManualClock())
        let client = F.client(stub, [retry, LoggingMiddleware(logger: logger, level: .info)])
        _ = try await client.send(F.text(.get, "/items"))
        let entries = handler.entries.filter { $0.level == .info }
        try #require(entries.count == 2)
        #expect(entries[0].metadata["courier.attempt"] == nil)
        #expect(entries[0].metadata["http.response.status_code"] == "503")
        #expect(entries[1].metadata["courier.attempt"] == "2")
        #expect(entries[1].metadata["http.response.status_code"] == "200")
        #expect(entries[1].metadata["http.response.body.size"] == "2")
        #expect(entries[1].metadata["url.full"] == "https://api.example.com/v1/items")
    }

    @Test("a streamed body dropped before its end says so on its line")
    func aBodyDroppedBeforeItsEndSaysSo() async throws {
        let (logger, handler) = logger(.info)
        // A body that streams (one chunk of a sequence), not one the transport holds whole.
        let transport = MiddlewareTestTransport { _, _, _ in
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                continuation.yield(ArraySlice("never read".utf8))
                continuation.finish()
            }
            return (HTTPResponse(status: .ok), HTTPBody(chunks, length: .unknown, iterationBehavior: .single))
        }
        let client = F.client(transport, [LoggingMiddleware(logger: logger, level: .info)])
        do {
            let streamed = try await client.stream(for: Request<Data>(path: "/x"))
            #expect(streamed.body != nil)
        }
        let entries = handler.entries
        try #require(entries.count == 1)
        #expect("\(entries[0].message)".hasSuffix(", body not read to the end)"))
        #expect(entries[0].metadata["http.response.body.size"] == "0")
    }

    @Test func saysWhenTheCacheAnswered() async throws {
        let (logger, handler) = logger(.info)
        let stub = StubTransport()
        stub.on(.get, "/users/{id}", StubResponse.text("ada").header(.cacheControl, "max-age=600"))
        let client = F.client(stub, [LoggingMiddleware(logger: logger, level: .info), CachingMiddleware()])
        _ = try await client.send(F.text(.get, "/users/1"))
        _ = try await client.send(F.text(.get, "/users/1"))
        let lines = handler.entries.filter { $0.level == .info }
        #expect(lines.map { $0.metadata["courier.cache"].map { "\($0)" } } == ["miss", "hit"])
        let lastLine = "\(lines.last?.message ?? "")"
        #expect(lastLine.contains("cache hit"))
    }

    @Test func redactsSecretsInHeadersAndQueriesAtDebug() async throws {
        let (logger, handler) = logger(.debug)
        let stub = StubTransport()
        stub.on(.get, "/me", StubResponse.text("ok").header(.setCookie, "session=abc123"))
        let client = F.client(stub, [
            LoggingMiddleware(logger: logger, redactedHeaders: ["X-Signature"], redactedQueryItems: ["pub_sign"]),
            AuthenticationMiddleware(.bearer("tok-SECRET-1")),
        ])
        let request = F.text(.get, "/me", headers: [.cookie: "sid=cookie-SECRET-2", HTTPField.Name("X-Amz-Security-Token")!: "amz-SECRET-3",
                                                     HTTPField.Name("X-Signature")!: "sig-SECRET-4"])
            .query("access_token", "q-SECRET-5").query("pub_sign", "q-SECRET-6").query("page", "1")
        _ = try await client.send(request)
        let text = allText(handler)
        for secret in ["tok-SECRET-1", "cookie-SECRET-2", "amz-SECRET-3", "sig-SECRET-4", "q-SECRET-5", "q-SECRET-6", "abc123"] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        #expect(text.contains("page=1"))
        #expect(text.contains("<redacted>"))
        #expect(handler.entries.contains { $0.level == .debug })
    }

    @Test func showsReplayableBodiesTruncatedAndNeverConsumesASinglePassBody() async throws {
        let (logger, handler) = logger(.debug)
        let stub = StubTransport()
        stub.on(.put, "/a", .text(String(repeating: "r", count: 100)))
        stub.on(.put, "/b", .text("ok"))
        let client = F.client(stub, [LoggingMiddleware(logger: logger, maxBodyBytes: 10)])
        _ = try await client.send(F.text(.put, "/a", body: .data(Data(String(repeating: "q", count: 50).utf8), contentType: "text/plain")))
        _ = try await client.send(F.text(.put, "/b", body: .stream(F.singlePassBody("single-pass-payload"))))
        let text = allText(handler)
        #expect(text.contains("qqqqqqqqqq… (truncated)"))
        #expect(text.contains("rrrrrrrrrr… (truncated)"))
        #expect(text.contains("(streamed, not shown)"))
        #expect(stub.requests.last?.bodyText == "single-pass-payload")
    }

    @Test func redactsSecretFieldsOfLoggedBodies() async throws {
        let (logger, handler) = logger(.debug)
        let stub = StubTransport()
        stub.on(.post, "/auth/login", .json(#"{"token":"resp-SECRET-1","user":"ada"}"#))
        stub.on(.post, "/auth/form", .text("ok"))
        let client = F.client(stub, [LoggingMiddleware(logger: logger, redactedQueryItems: ["pin"])])
        _ = try await client.send(F.text(.post, "/auth/login", body: .json(["username": "ada", "password": "pw-SECRET-2"])))
        _ = try await client.send(F.text(.post, "/auth/form", body: .form([("username", "ada"), ("pin", "pin-SECRET-3")])))
        let text = allText(handler)
        for secret in ["resp-SECRET-1", "pw-SECRET-2", "pin-SECRET-3"] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        #expect(text.contains(#""username":"ada""#))
        #expect(text.contains("username=ada&pin=<redacted>"))
    }

    @Test("logged bodies hide the fields cassettes hide (ticket, jwt, sign, pub_ticket…) and the whole of an array or object under a secret name")
    func redactsStandardNamesAndNestedValues() async throws {
        let (logger, handler) = logger(.debug)
        let stub = StubTransport()
        stub.on(.post, "/auth/login", .json(#"{"uid":"42","ticket":"T-SECRET","jwt":"J-SECRET","tokens":["t1-SECRET", "t2-SECRET"],"api_key":{"value":"K SECRET","id":2},"token_type":"bearer"}"#))
        let client = F.client(stub, [LoggingMiddleware(logger: logger)])
        _ = try await client.send(F.text(.post, "/auth/login", body: .form([("user", "ada"), ("pub_ticket", "PT-SECRET"), ("sign", "S-SECRET")])))
        let text = allText(handler)
        for secret in ["T-SECRET", "J-SECRET", "t1-SECRET", "t2-SECRET", "K SECRET", "PT-SECRET", "S-SECRET"] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        #expect(text.contains(#""uid":"42""#))
        #expect(text.contains(#""token_type":"bearer""#))
        #expect(text.contains("user=ada"))
    }

    @Test func logsAFailureAtItsOwnLevelNeverAsAWarning() async throws {
        let (logger, handler) = logger(.trace)
        let stub = StubTransport()
        stub.on(.get, "/down", .failure(TransportError(.connectionFailed, "refused")))
        let client = F.client(stub, [LoggingMiddleware(logger: logger)])
        await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/down")) }
        #expect(handler.entries.allSatisfy { $0.level <= .debug })
        let entry = try #require(handler.entries.last)
        #expect(entry.level == .debug)
        #expect("\(entry.message)".contains("failed after"))
    }

    @Test func verboseStyleWritesAnEmojiTranscript() async throws {
        let (logger, handler) = logger(.info)
        let stub = StubTransport()
        stub.on(.get, "/client/config", .json(#"{"success":true}"#))
        let client = F.client(stub, [LoggingMiddleware(logger: logger, level: .info, style: .verbose), AuthenticationMiddleware(.bearer("tok-SECRET"))])
        _ = try await client.send(F.text(.get, "/client/config"))
        let text = allText(handler)
        #expect(handler.entries.count == 1)
        for marker in ["🚀 API Request: GET https://api.example.com/v1/client/config", "📋 Headers:", "✅ API Response: 200 OK",
                       "📦 Response Size: 16 B", #"📄 Response Data: {"success":true}"#] {
            #expect(text.contains(marker), "missing \(marker)")
        }
        #expect(!text.contains("tok-SECRET"))
    }

    @Test func theTasksLoggerMetadataFlowsIntoCourierLines() async throws {
        let (logger, handler) = logger(.info)
        let stub = StubTransport()
        stub.on(.get, "/x", .text("ok"))
        let client = F.client(stub, [LoggingMiddleware(logger: logger, level: .info)])
        var appLogger = Logger(label: "app")
        appLogger[metadataKey: "request.id"] = "req-42"
        _ = try await withLogger(appLogger) { _ in try await client.send(F.text(.get, "/x")) }
        #expect(handler.entries.first?.metadata["request.id"] == "req-42")
    }

    @Test func logsNothingBelowTheLoggersLevel() async throws {
        let (logger, handler) = logger(.error)
        let stub = StubTransport()
        stub.on(.get, "/x", .text("ok"))
        let client = F.client(stub, [LoggingMiddleware(logger: logger)])
        _ = try await client.send(F.text(.get, "/x"))
        #expect(handler.entries.isEmpty)
    }

    @Test("LoggingMiddleware(style: .verbose), nothing else set: the transcript reaches the task's logger at .info; the client alone stays silent")
    func verboseWithNoSettingIsSeen() async throws {
        let (appLogger, handler) = logger(.info)               // swift-log's usual level
        let stub = StubTransport()
        stub.on(.get, "/client/config", .json(#"{"success":true}"#))
        // The seed's way: the middleware, no level, no configuration.logger.
        let verbose = F.client(stub, [LoggingMiddleware(style: .verbose)])
        _ = try await withLogger(appLogger) { _ in try await verbose.send(F.text(.get, "/client/config")) }
        let text = allText(handler)
        #expect(handler.entries.count == 1)
        #expect(handler.entries.first?.level == .info)
        #expect(text.contains("🚀 API Request: GET https://api.example.com/v1/client/config"))
        #expect(text.contains("✅ API Response: 200 OK"))

        // A library's defaults stay quiet: no middleware, nothing; the standard line is at debug.
        let silent = F.client(stub, [])
        let standard = F.client(stub, [LoggingMiddleware()])
        let before = handler.entries.count
        _ = try await withLogger(appLogger) { _ in try await silent.send(F.text(.get, "/client/config")) }
        _ = try await withLogger(appLogger) { _ in try await standard.send(F.text(.get, "/client/config")) }
        #expect(handler.entries.count == before)
    }

    @Test("a client logger that is set wins over the task's logger")
    func configuredLoggerWins() async throws {
        let (clientLogger, clientHandler) = logger(.info)
        let (appLogger, appHandler) = logger(.info)
        let stub = StubTransport()
        stub.on(.get, "/x", .text("ok"))
        var configuration = APIConfiguration(baseURL: F.baseURL)
        configuration.logger = clientLogger
        let client = APIClient(configuration: configuration, transport: stub, middleware: [LoggingMiddleware(style: .verbose)])
        _ = try await withLogger(appLogger) { _ in try await client.send(F.text(.get, "/x")) }
        #expect(clientHandler.entries.count == 1)
        #expect(appHandler.entries.isEmpty)
    }
}
