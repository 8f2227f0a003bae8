import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// Retry and authentication middleware against servers that misbehave on purpose, over both
/// transports.
@Suite("Middleware over real transports")
struct MiddlewareIntegrationTests {
    private func client(_ kind: TransportKind, _ baseURL: URL, _ middleware: [any Middleware]) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: baseURL, timeout: .seconds(60)), transport: kind.makeTransport(), middleware: middleware)
    }

    private static let fastRetries = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(10), maxDelay: .seconds(5))

    @Test("503 with Retry-After is retried after at least the time it asks for", arguments: TransportKind.allCases)
    func retryAfter(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = client(kind, server.baseURL, [RetryMiddleware(policy: Self.fastRetries)])
            struct Attempts: Decodable, Sendable { var attempts: Int }
            let key = "retry-after-\(kind.rawValue)"
            let clock = ContinuousClock()
            let start = clock.now
            let result = try await client.send(Request<Attempts>(
                path: "/flaky/{key}", pathParameters: ["key": key],
                query: [.init(name: "failures", value: "2"), .init(name: "status", value: "503"), .init(name: "retryAfter", value: "1")]))
            #expect(result.attempts == 3)
            #expect(start.duration(to: clock.now) >= .seconds(2), "Retry-After: 1 twice means at least 2 s of waiting")
        }
    }

    @Test("a connection closed mid-body is retried for a GET, and the second attempt succeeds", arguments: TransportKind.allCases)
    func closedMidBody(_ kind: TransportKind) async throws {
        let server = try await FaultServer.start()
        do {
            let client = client(kind, server.baseURL, [RetryMiddleware(policy: Self.fastRetries)])
            struct OK: Decodable, Sendable { var ok: Bool }
            let value = try await client.send(Request<OK>(path: "/truncate-once/\(kind.rawValue)"))
            #expect(value.ok)
            #expect(server.requestCount == 2)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("401 until the token changes: a burst of requests triggers one refresh and all succeed", arguments: TransportKind.allCases)
    func unauthorizedUntilTheTokenChanges(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let plain = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport())
            struct Rotated: Decodable, Sendable { var token: String }
            let tokens = ClosureTokenProvider(
                token: { AccessToken("expired-token") },
                refresh: { _ in AccessToken(try await plain.send(Request<Rotated>(method: .post, path: "/auth/rotate")).token) }
            )
            let client = client(kind, server.baseURL, [RetryMiddleware(policy: Self.fastRetries), AuthenticationMiddleware(.bearer(tokens))])
            struct Protected: Decodable, Sendable { var user: String }
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 { group.addTask { try await client.send(Request<Protected>(path: "/auth/protected")).user } }
                for try await user in group { #expect(user == "ok") }
            }
            struct Count: Decodable, Sendable { var count: Int }
            #expect(try await plain.send(Request<Count>(path: "/auth/refresh-count")).count == 1)
        }
    }
    @Test("a hung token refresh fails every waiting request at the refresh's own limit, as a timeout", arguments: TransportKind.allCases)
    func hungRefresh(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let tokens = ClosureTokenProvider(
                token: { AccessToken("expired-token") },
                refresh: { _ in
                    // An identity provider that hangs and ignores cancellation: it waits for a
                    // detached task, which the refresher's cancellation does not reach (10 s, so
                    // the test process does not keep it forever).
                    try await Task.detached { try await Task.sleep(for: .seconds(10)) }.value
                    return AccessToken("late")
                }
            )
            let refresher = TokenRefresher(provider: tokens, refreshTimeout: .milliseconds(300))
            var configuration = APIConfiguration(baseURL: server.baseURL)
            configuration.timeout = .seconds(300)
            let client = APIClient(configuration: configuration, transport: kind.makeTransport(), middleware: [AuthenticationMiddleware(.bearer(refresher))])
            struct Protected: Decodable, Sendable { var user: String }
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        await #expect {
                            try await client.send(Request<Protected>(path: "/auth/protected"))
                        } throws: { error in
                            guard let apiError = error as? APIError, apiError.kind == .timeout, let after = apiError.timeLimit else { return false }
                            return after == .milliseconds(300)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(start.duration(to: .now) < .seconds(90), "a hang guard: the requests must not wait for their own 300 s deadline")
            #expect(await refresher.refreshCount == 1)
        }
    }
}
