import Foundation

/// The single-flight state machine behind ``AuthenticationMiddleware``'s token refresh.
///
/// - Concurrent callers of ``token(before:)`` share one load; concurrent callers of
///   ``refresh(after:before:)`` share one refresh: a burst of fifty `401`s makes one
///   ``TokenProvider/refresh(rejected:)`` call, and all fifty get the new token.
/// - A caller whose ``Lease`` is older than the current token gets the current token without a
///   new refresh (it was sent before the last refresh finished).
/// - When a refresh fails, every caller waiting for it, and every caller whose lease predates
///   the failure, gets the same ``AuthenticationError`` (kind ``AuthenticationError/Kind/refreshFailed``);
///   the burst does not trigger a second refresh. A request that starts afterwards may try again.
/// - An expired token (``AccessToken/expiresAt``, 30 s early) is refreshed before it is used.
///   A refreshed token that lives less than those 30 s is used until it expires, and one that
///   arrives already expired (a device clock running ahead) until the server answers `401`:
///   neither is refreshed again for every request.
/// - A caller whose task is cancelled, or whose deadline passes, stops waiting at once (a
///   `CancellationError`, or a ``TransportError`` of kind ``TransportError/Kind/timeout``); the
///   shared load or refresh goes on for the others.
/// - A load or refresh has its own time limit, ``refreshTimeout`` (15 s by default): a provider
///   that hangs fails every waiting caller at that point with an ``AuthenticationError`` of kind
///   ``AuthenticationError/Kind/timedOut`` (an ``APIError`` of kind ``APIError/Kind/timeout`` for requests),
///   instead of holding each request until its own deadline. The next request tries again.
///
/// ```swift
/// let refresher = TokenRefresher(provider: tokens)
/// let lease = try await refresher.token()
/// // … the server answers 401 to a request sent with lease.token …
/// let renewed = try await refresher.refresh(after: lease)
/// ```
public actor TokenRefresher {
    /// A token, and the version of the refresher's state it came from.
    public struct Lease: Sendable, Hashable {
        /// The token.
        public let token: AccessToken
        /// Increases each time a refresh finishes (successfully or not).
        public let epoch: Int
    }

    private struct Flight {
        let task: Task<AccessToken, any Error>
        /// The epoch the state will have when the flight lands.
        let epoch: Int
        let isRefresh: Bool
    }

    private let provider: any TokenProvider
    private let clock: any TimeSource
    /// The longest a token load or refresh may take.
    public nonisolated let refreshTimeout: Duration
    private var current: AccessToken? {
        didSet { expiryCheck = Self.expiryCheck(for: current, arrivedFromRefresh: currentCameFromRefresh, now: clock.now()) }
    }
    /// Whether ``current`` came from a refresh (rather than a load or ``update(_:)``).
    private var currentCameFromRefresh = false
    /// When ``current`` counts as expired and is refreshed before use.
    private var expiryCheck = ExpiryCheck.early

    /// When a token counts as expired, as it arrived. A refreshed token that lives less than the
    /// leeway is used until it expires, and one that arrived already expired (the device's
    /// clock runs ahead of the server's) until the server rejects it: refreshing it early would
    /// refresh for every request.
    private enum ExpiryCheck {
        /// 30 s before ``AccessToken/expiresAt``.
        case early
        /// From ``AccessToken/expiresAt`` on.
        case atExpiry
        /// Never by its expiry; a `401` still renews it.
        case never
    }

    private static func expiryCheck(for token: AccessToken?, arrivedFromRefresh: Bool, now: Date) -> ExpiryCheck {
        guard let token, arrivedFromRefresh, token.isExpired(at: now) else { return .early }
        return token.isExpired(at: now, leeway: 0) ? .never : .atExpiry
    }

    /// Whether `token` (the current one) is to be refreshed before it is sent at `now`.
    private func needsRefresh(_ token: AccessToken, at now: Date) -> Bool {
        switch expiryCheck {
        case .early: token.isExpired(at: now)
        case .atExpiry: token.isExpired(at: now, leeway: 0)
        case .never: false
        }
    }
    private var epoch = 0
    private var lastFailure: AuthenticationError?
    private var inFlight: Flight?
    private var refreshes = 0

    /// Creates a refresher.
    /// - Parameters:
    ///   - provider: where tokens come from.
    ///   - refreshTimeout: the longest a token load or refresh may take (default 15 s).
    ///   - clock: the wall clock used to check ``AccessToken/expiresAt`` (tests inject one).
    public init(provider: any TokenProvider, refreshTimeout: Duration = .seconds(15), clock: any TimeSource = .system) {
        self.provider = provider
        self.refreshTimeout = refreshTimeout.clampedToLongestWait
        self.clock = clock
    }

    /// The number of refreshes started so far (for tests and diagnostics).
    public var refreshCount: Int { refreshes }

    /// The token to send now: the current one, the one being refreshed, or a freshly loaded one.
    /// - Parameter deadline: when to stop waiting for a load or refresh (`nil`: no limit);
    ///   ``AuthenticationMiddleware`` passes the request's deadline.
    public func token(before deadline: ContinuousClock.Instant? = nil) async throws -> Lease {
        if let inFlight { return try await land(inFlight, deadline: deadline) }
        if let current {
            if needsRefresh(current, at: clock.now()) { return try await startRefresh(of: current, deadline: deadline) }
            return Lease(token: current, epoch: epoch)
        }
        let provider = self.provider
        let limit = refreshTimeout
        let task = Task<AccessToken, any Error> {
            do {
                return try await Self.bounded(by: limit, what: "loading the access token") { try await provider.token() }
            } catch let error as AuthenticationError {
                throw error
            } catch {
                throw AuthenticationError(.tokenUnavailable, underlying: error)
            }
        }
        return try await land(start(Flight(task: task, epoch: epoch + 1, isRefresh: false)), deadline: deadline)
    }

    /// A token to retry with after the server rejected `lease`'s token.
    ///
    /// Refreshes only when no newer token exists and no refresh is running or has failed since
    /// `lease` was handed out.
    /// - Parameters:
    ///   - lease: the lease whose token the server rejected.
    ///   - deadline: when to stop waiting for the refresh (`nil`: no limit).
    public func refresh(after lease: Lease, before deadline: ContinuousClock.Instant? = nil) async throws -> Lease {
        if let inFlight { return try await land(inFlight, deadline: deadline) }
        if lease.epoch < epoch {
            if let lastFailure { throw lastFailure }
            if let current { return Lease(token: current, epoch: epoch) }
        }
        return try await startRefresh(of: current ?? lease.token, deadline: deadline)
    }

    /// Replaces the token (after a login) and forgets any earlier refresh failure.
    public func update(_ token: AccessToken) {
        currentCameFromRefresh = false
        current = token
        epoch += 1
        lastFailure = nil
    }

    private func startRefresh(of rejected: AccessToken, deadline: ContinuousClock.Instant?) async throws -> Lease {
        refreshes += 1
        let provider = self.provider
        let limit = refreshTimeout
        let task = Task<AccessToken, any Error> {
            do {
                return try await Self.bounded(by: limit, what: "refreshing the access token") { try await provider.refresh(rejected: rejected) }
            } catch let error as AuthenticationError {
                throw error
            } catch {
                throw AuthenticationError(.refreshFailed, underlying: error)
            }
        }
        return try await land(start(Flight(task: task, epoch: epoch + 1, isRefresh: true)), deadline: deadline)
    }

    private func start(_ flight: Flight) -> Flight {
        inFlight = flight
        lastFailure = nil
        return flight
    }

    /// Waits for a load or refresh. Whichever caller resumes first records the outcome, so the
    /// state is the same whatever order the actor runs the waiters in.
    private func land(_ flight: Flight, deadline: ContinuousClock.Instant?) async throws -> Lease {
        do {
            let token = try await Self.value(of: flight.task, deadline: deadline)
            if epoch < flight.epoch {
                currentCameFromRefresh = flight.isRefresh
                current = token
                epoch = flight.epoch
                lastFailure = nil
            }
            if inFlight?.epoch == flight.epoch { inFlight = nil }
            return Lease(token: token, epoch: flight.epoch)
        } catch {
            // The flight wraps every failure in AuthenticationError: a bare CancellationError or
            // TransportError means this caller was cancelled or ran out of time; the flight goes
            // on and the next caller records its outcome.
            if error is CancellationError || error is TransportError { throw error }
            let failure = error as? AuthenticationError ?? AuthenticationError(.refreshFailed, underlying: error)
            if inFlight?.epoch == flight.epoch {
                inFlight = nil
                if flight.isRefresh {
                    epoch = max(epoch, flight.epoch)
                    lastFailure = failure
                }
            }
            throw failure
        }
    }

    /// The provider's token, or an ``AuthenticationError`` of kind `timedOut` when it takes longer
    /// than `limit`. The provider runs in a task of its own, which is cancelled then but never
    /// awaited: a provider that ignores cancellation cannot hold its waiters past the limit (a
    /// task group would wait for it).
    private nonisolated static func bounded(
        by limit: Duration, what: String, _ operation: @escaping @Sendable () async throws -> AccessToken
    ) async throws -> AccessToken {
        let work = Task { try await operation() }
        do {
            return try await value(of: work, deadline: ContinuousClock.now.advanced(by: limit))
        } catch let error as TransportError where error.kind == .timeout {
            work.cancel()
            throw AuthenticationError(.timedOut, underlying: TokenRefreshTimeout(operation: what, limit: limit))
        } catch {
            if error is CancellationError { work.cancel() }
            throw error
        }
    }

    /// The task's value, or `CancellationError` as soon as the *calling* task is cancelled, or a
    /// timeout error at `deadline` (the shared load or refresh keeps running for the other callers).
    private nonisolated static func value(of task: Task<AccessToken, any Error>, deadline: ContinuousClock.Instant?) async throws -> AccessToken {
        let waiter = Waiter()
        let timer = deadline.map { deadline in
            Task {
                try await SystemTimeSource().sleep(until: deadline)
                waiter.resume(with: .failure(TransportError(.timeout, "the deadline passed while waiting for an access token", requestMayHaveBeenSent: false)))
            }
        }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.install(continuation)
                Task { waiter.resume(with: await task.result) }
            }
        } onCancel: {
            waiter.resume(with: .failure(CancellationError()))
        }
    }

    /// Resumes one continuation exactly once, whichever comes first: the result or cancellation.
    private final class Waiter: Sendable {
        private struct State {
            var continuation: CheckedContinuation<AccessToken, any Error>?
            var early: Result<AccessToken, any Error>?
            var done = false
        }
        private let state = Locked(State())

        func install(_ continuation: CheckedContinuation<AccessToken, any Error>) {
            let early = state.withLock { state -> Result<AccessToken, any Error>? in
                if let early = state.early { state.done = true; return early }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func resume(with result: Result<AccessToken, any Error>) {
            let continuation = state.withLock { state -> CheckedContinuation<AccessToken, any Error>? in
                guard !state.done else { return nil }
                guard let continuation = state.continuation else {
                    if state.early == nil { state.early = result }
                    return nil
                }
                state.done = true
                state.continuation = nil
                return continuation
            }
            continuation?.resume(with: result)
        }
    }
}
