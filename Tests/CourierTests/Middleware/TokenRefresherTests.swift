import Courier
import Foundation
import Testing
import CourierTesting

/// A provider that counts its calls; `refresh` waits a little so concurrent callers pile up.
final class CountingTokenProvider: TokenProvider {
    struct RefreshFailed: Error, Equatable {}

    private let state = Locked((loads: 0, refreshes: 0, version: 1))
    let failRefresh: Bool
    let initial: AccessToken?

    init(failRefresh: Bool = false, initial: AccessToken? = nil) {
        self.failRefresh = failRefresh
        self.initial = initial
    }

    var loads: Int { state.withLock { $0.loads } }
    var refreshes: Int { state.withLock { $0.refreshes } }

    func token() async throws -> AccessToken {
        try await Task.sleep(for: .milliseconds(20))
        return state.withLock { $0.loads += 1; return initial ?? AccessToken("token-\($0.version)") }
    }

    func refresh(rejected: AccessToken) async throws -> AccessToken {
        try await Task.sleep(for: .milliseconds(50))
        let version = state.withLock { $0.refreshes += 1; $0.version += 1; return $0.version }
        if failRefresh { throw RefreshFailed() }
        return AccessToken("token-\(version)")
    }
}

@Suite struct TokenRefresherTests {
    @Test func concurrentCallersShareOneLoad() async throws {
        let provider = CountingTokenProvider()
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard)
        let leases = try await withThrowingTaskGroup(of: TokenRefresher.Lease.self) { group in
            for _ in 0..<50 { group.addTask { try await refresher.token() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(provider.loads == 1)
        #expect(Set(leases.map(\.token.value)) == ["token-1"])
    }

    @Test func fiftyConcurrentRejectionsCauseExactlyOneRefresh() async throws {
        let provider = CountingTokenProvider()
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard)
        let lease = try await refresher.token()
        let renewed = try await withThrowingTaskGroup(of: TokenRefresher.Lease.self) { group in
            for _ in 0..<50 { group.addTask { try await refresher.refresh(after: lease) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(provider.refreshes == 1)
        #expect(await refresher.refreshCount == 1)
        #expect(Set(renewed.map(\.token.value)) == ["token-2"])
        #expect(Set(renewed.map(\.epoch)).count == 1)
    }

    @Test func aStaleLeaseGetsTheCurrentTokenWithoutRefreshing() async throws {
        let provider = CountingTokenProvider()
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard)
        let old = try await refresher.token()
        let first = try await refresher.refresh(after: old)
        let late = try await refresher.refresh(after: old)
        #expect(late == first)
        #expect(provider.refreshes == 1)
        // A rejection of the *current* token refreshes again.
        let next = try await refresher.refresh(after: first)
        #expect(next.token.value == "token-3")
        #expect(provider.refreshes == 2)
    }

    @Test func aFailedRefreshFailsEveryWaiterOnceAndDoesNotLoop() async throws {
        let provider = CountingTokenProvider(failRefresh: true)
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard)
        let lease = try await refresher.token()
        let outcomes = await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do { _ = try await refresher.refresh(after: lease); return nil } catch { return error }
                }
            }
            return await group.reduce(into: [(any Error)?]()) { $0.append($1) }
        }
        #expect(provider.refreshes == 1)
        #expect(outcomes.count == 50)
        for outcome in outcomes {
            let error = try #require(outcome as? AuthenticationError)
            #expect(error.kind == .refreshFailed)
            #expect(error.underlying is CountingTokenProvider.RefreshFailed)
        }
        // The same burst (the same lease) does not refresh again…
        await #expect(throws: AuthenticationError.self) { try await refresher.refresh(after: lease) }
        #expect(provider.refreshes == 1)
        // …but a request that starts afterwards may try once more.
        let fresh = try await refresher.token()
        await #expect(throws: AuthenticationError.self) { try await refresher.refresh(after: fresh) }
        #expect(provider.refreshes == 2)
    }

    @Test func anExpiredTokenIsRefreshedBeforeUse() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let provider = CountingTokenProvider(initial: AccessToken("stale", expiresAt: now.addingTimeInterval(10)))
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard, clock: ManualClock(now: now))
        let first = try await refresher.token()      // loads "stale", which expires within the leeway
        #expect(first.token.value == "stale")
        let second = try await refresher.token()
        #expect(second.token.value == "token-2")
        #expect(provider.refreshes == 1)
    }

    /// A provider whose refreshed tokens live `lifetime` seconds from `now` (negative: already
    /// expired when they arrive, as with a device clock running ahead).
    private final class ShortLivedTokens: TokenProvider {
        let now: Date
        let lifetime: TimeInterval
        let refreshes = Locked(0)
        init(now: Date, lifetime: TimeInterval) { self.now = now; self.lifetime = lifetime }
        func token() async throws -> AccessToken { AccessToken("loaded", expiresAt: now.addingTimeInterval(5)) }
        func refresh(rejected: AccessToken) async throws -> AccessToken {
            let count = refreshes.withLock { $0 += 1; return $0 }
            return AccessToken("refreshed-\(count)", expiresAt: now.addingTimeInterval(lifetime))
        }
    }

    @Test("a refreshed token that lives less than the 30 s leeway, or arrives expired (a clock running ahead), is used, not refreshed again for every request",
          arguments: [10.0, -60.0])
    func noRefreshStormForShortLivedTokens(_ lifetime: TimeInterval) async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let provider = ShortLivedTokens(now: now, lifetime: lifetime)
        let clock = ManualClock(now: now)
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard, clock: clock)
        #expect(try await refresher.token().token.value == "loaded")
        for _ in 0..<5 { #expect(try await refresher.token().token.value == "refreshed-1") }
        #expect(provider.refreshes.current == 1)
        // A 401 still renews it.
        let lease = try await refresher.token()
        #expect(try await refresher.refresh(after: lease).token.value == "refreshed-2")
        // Past its expiry, a short-lived token is refreshed before use; one that arrived expired
        // waits for the server's 401.
        clock.advance(by: 11)
        #expect(try await refresher.token().token.value == (lifetime > 0 ? "refreshed-3" : "refreshed-2"))
    }

    @Test("a token given with update(_:) that has expired is refreshed before use")
    func updatedExpiredTokenIsRefreshed() async throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let provider = ShortLivedTokens(now: now, lifetime: 3_600)
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard, clock: ManualClock(now: now))
        await refresher.update(AccessToken("old", expiresAt: now.addingTimeInterval(-5)))
        #expect(try await refresher.token().token.value == "refreshed-1")
    }

    @Test func updateReplacesTheTokenAndClearsAFailure() async throws {
        let provider = CountingTokenProvider(failRefresh: true)
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard)
        let lease = try await refresher.token()
        await #expect(throws: AuthenticationError.self) { try await refresher.refresh(after: lease) }
        await refresher.update("logged-in")
        let afterLogin = try await refresher.refresh(after: lease)
        #expect(afterLogin.token.value == "logged-in")
        #expect(provider.refreshes == 1)
    }

    @Test func aCancelledWaiterStopsWaitingWhileTheRefreshGoesOnForTheOthers() async throws {
        let gate = MiddlewareTestBarrier(count: 2)
        let refreshes = Locked(0)
        let provider = ClosureTokenProvider(token: { "old" }, refresh: { _ in
            refreshes.withLock { $0 += 1 }
            await gate.arrive()
            return "new"
        })
        let refresher = TokenRefresher(provider: provider, refreshTimeout: MiddlewareFixtures.refreshHangGuard)
        let lease = try await refresher.token()
        let patient = Task { try await refresher.refresh(after: lease) }
        let impatient = Task { try await refresher.refresh(after: lease) }
        try await Task.sleep(for: .milliseconds(50))
        impatient.cancel()
        await #expect(throws: CancellationError.self) { try await impatient.value }
        await gate.arrive()
        #expect(try await patient.value.token.value == "new")
        #expect(refreshes.current == 1)
        #expect(try await refresher.token().token.value == "new")
    }

    @Test func aTokenNeverShowsItsValue() {
        #expect(!"\(AccessToken("s3cr3t"))".contains("s3cr3t"))
    }
}
