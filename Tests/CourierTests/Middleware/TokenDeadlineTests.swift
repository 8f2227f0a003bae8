import Courier
import CourierTesting
import Foundation
import Testing

/// A token load or refresh that hangs never holds a request past its deadline.
@Suite struct TokenDeadlineTests {
    /// A provider whose calls take `delay`, counting them.
    final class SlowTokenProvider: TokenProvider {
        let delay: Duration
        private let calls = Locked((loads: 0, refreshes: 0))
        init(delay: Duration) { self.delay = delay }
        var loads: Int { calls.withLock { $0.loads } }
        func token() async throws -> AccessToken {
            calls.withLock { $0.loads += 1 }
            try await Task.sleep(for: delay)
            return AccessToken("slow-token")
        }
        func refresh(rejected: AccessToken) async throws -> AccessToken {
            calls.withLock { $0.refreshes += 1 }
            try await Task.sleep(for: delay)
            return AccessToken("slow-refreshed")
        }
    }

    /// A provider whose load finishes only when the test releases it.
    final class HeldTokenProvider: TokenProvider {
        private let gate = AsyncStream<Void>.makeStream()
        private let calls = Locked(0)
        var loads: Int { calls.current }
        func release() { gate.continuation.finish() }
        func token() async throws -> AccessToken {
            calls.withLock { $0 += 1 }
            for await _ in gate.stream {}
            return AccessToken("slow-token")
        }
        func refresh(rejected: AccessToken) async throws -> AccessToken { try await token() }
    }

    @Test(.timeLimit(.minutes(1)))  // a caller that waited for the held load would hang: fail instead
    func aCallerWhoseDeadlinePassesStopsWaitingWhileTheLoadGoesOnForOthers() async throws {
        // No timing: the load is held until the impatient caller is back, so it can only pass
        // if that caller stopped waiting at its own deadline.
        let provider = HeldTokenProvider()
        let refresher = TokenRefresher(provider: provider)
        let patient = Task { try await refresher.token() }
        let error = await #expect(throws: TransportError.self) {
            try await refresher.token(before: .now.advanced(by: .milliseconds(50)))
        }
        #expect(error?.kind == .timeout)
        #expect(error?.requestMayHaveBeenSent == false)
        provider.release()
        #expect(try await patient.value.token.value == "slow-token")
        #expect(provider.loads == 1, "the timed-out caller must not restart or cancel the shared load")
        // The timeout was not recorded as a failure: the token is there for the next caller.
        #expect(try await refresher.token(before: .now.advanced(by: .milliseconds(50))).token.value == "slow-token")
    }

    @Test func aHungTokenProviderEndsTheRequestInATimeoutAtTheDeadline() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", .text("ok"))
        let client = MiddlewareFixtures.client(stub, [AuthenticationMiddleware(.bearer(SlowTokenProvider(delay: .seconds(600))))],
                                               timeout: .milliseconds(300))
        let elapsed = await ContinuousClock().measure {
            await #expect {
                try await client.send(MiddlewareFixtures.text(.get, "/me"))
            } throws: { error in
                guard let apiError = error as? APIError, apiError.kind == .timeout else { return false }
                return apiError.timeLimit == .milliseconds(300)
            }
        }
        #expect(elapsed < .seconds(90), "a hang guard: the deadline is 0.3 s, the provider takes 600 s")
        #expect(stub.requests.isEmpty, "nothing may be sent without a token")
    }

    @Test func aHungRefreshAfterA401EndsInATimeoutAtTheDeadline() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", .status(401))
        let refresher = TokenRefresher(provider: SlowTokenProvider(delay: .seconds(600)))
        await refresher.update(AccessToken("stale"))
        let client = MiddlewareFixtures.client(stub, [AuthenticationMiddleware(.bearer(refresher))], timeout: .milliseconds(300))
        let elapsed = await ContinuousClock().measure {
            await #expect {
                try await client.send(MiddlewareFixtures.text(.get, "/me"))
            } throws: { error in
                guard let apiError = error as? APIError, apiError.kind == .timeout else { return false }
                return apiError.timeLimit == .milliseconds(300)
            }
        }
        #expect(elapsed < .seconds(90), "a hang guard: the deadline is 0.3 s, the provider takes 600 s")
        #expect(stub.requests.count == 1, "one request with the stale token, no retry without a new one")
    }
}
