import Foundation
import HTTPTypes

/// The exchanges a ``CoalescingMiddleware`` has in flight, each shared by every caller that
/// asked for the same thing while it ran.
///
/// Hand-written because no listed library shares one async operation between callers with
/// per-caller cancellation. The exchange always runs inside one caller's own call (its
/// *leader*), so it uses that caller's middleware chain and nothing outlives the calls. The
/// other callers wait on their own continuations: a waiter that is cancelled stops waiting at
/// once. A leader that is cancelled stops its exchange; if callers are still waiting, one of
/// them becomes the leader and sends the request again.
final class InFlightExchanges: Sendable {
    /// What identifies "the same request": method, URL and every header field in order
    /// (credentials included, so different credentials never share a response).
    struct Key: Hashable, Sendable {
        var method: String
        var scheme: String?
        var authority: String?
        var path: String?
        var fields: [String]
        /// What decides the exchange below the middleware besides the request: callers whose
        /// options differ here would not get the same answer (one follows redirects, the other
        /// does not; one accepts a larger body or may not use the network). Not the deadline:
        /// each caller keeps its own (see ``join(_:deadline:)``).
        var redirectPolicy: RedirectPolicy?
        var cachePolicy: CachePolicy?
        var maxResponseSize: Int
        var idleTimeout: Duration?
        var sensitiveRedirectHeaders: Set<HTTPField.Name>
        /// The cookies the client's ``CookieJar`` adds below the middleware: a request sent
        /// after a logout and another login carries another session and must not share the
        /// first user's exchange.
        var jarCookies: String?

        init(_ request: HTTPRequest, context: RequestContext) {
            method = request.method.rawValue
            scheme = request.scheme
            authority = request.authority
            path = request.path
            fields = request.headerFields.map { "\($0.name.canonicalName):\($0.value)" }
            redirectPolicy = context.options.redirectPolicy
            cachePolicy = context.options.cachePolicy
            maxResponseSize = context.maxResponseSize
            idleTimeout = context.idleTimeout
            sensitiveRedirectHeaders = context.options.sensitiveRedirectHeaders
            jarCookies = context.cookieJar.flatMap { $0.cookies(addedTo: request) }
        }
    }

    /// A response whose body has been read whole, ready to hand to each caller.
    struct SharedResponse: Sendable {
        var head: HTTPResponse
        var body: Data
    }

    /// What a caller does: send the request itself, or take the response another caller got.
    enum Role: Sendable {
        case lead(flight: UInt64)
        case joined(SharedResponse)
    }

    private struct Flight {
        var id: UInt64
        var waiters: [UInt64: CheckedContinuation<Role, any Error>] = [:]
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var nextID: UInt64 = 0
        var joinedCount = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let state = Locked(State())  // not Mutex: Courier supports macOS 13

    /// How many callers joined an exchange another caller had started (a caller that then
    /// took over as leader is not counted).
    var joinedCount: Int { state.withLock { $0.joinedCount } }

    /// Leads a new exchange for `key`, or waits for the one in flight — until `deadline` at
    /// most (the waiter's own: the exchange it joined may have a later one), then it fails
    /// with a timeout.
    func join(_ key: Key, deadline: ContinuousClock.Instant) async throws -> Role {
        let lead: UInt64? = state.withLock { state in
            guard state.flights[key] == nil else { return nil }
            let id = state.makeID()
            state.flights[key] = Flight(id: id)
            return id
        }
        if let lead { return .lead(flight: lead) }

        let waiterID = state.withLock { $0.makeID() }
        // Only a waiter pays for a timer.
        let timer = Task { [self] in
            do { try await SystemTimeSource().sleep(until: deadline) } catch { return }
            expire(key, waiterID: waiterID)
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Role, any Error>) in
                let leadNow: UInt64? = state.withLock { state in
                    guard var flight = state.flights[key] else {
                        // The exchange ended in the meantime: lead a new one.
                        let id = state.makeID()
                        state.flights[key] = Flight(id: id)
                        return id
                    }
                    flight.waiters[waiterID] = continuation
                    state.flights[key] = flight
                    state.joinedCount += 1
                    return nil
                }
                if let leadNow {
                    continuation.resume(returning: .lead(flight: leadNow))
                } else if Task.isCancelled {
                    // Cancelled before the continuation was registered: the handler found
                    // nothing to cancel, so leave now.
                    leave(key, waiterID: waiterID)
                } else if ContinuousClock.now >= deadline {
                    // The deadline passed before the waiter was registered: the timer may have
                    // found nothing to expire, so expire it now (whoever removes it resumes it).
                    expire(key, waiterID: waiterID)
                }
            }
        } onCancel: {
            leave(key, waiterID: waiterID)
        }
    }

    /// The leader got a response (or a failure that is not its own cancellation): every waiter
    /// gets the same outcome, and the flight ends.
    func finish(_ key: Key, flight: UInt64, with outcome: Result<SharedResponse, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Role, any Error>] in
            guard let current = state.flights[key], current.id == flight else { return [] }
            state.flights[key] = nil
            return Array(current.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: outcome.map { .joined($0) }) }
    }

    /// The leader was cancelled: a waiting caller, if any, leads instead; otherwise the flight
    /// ends.
    func handOver(_ key: Key, flight: UInt64) {
        let next = state.withLock { state -> (CheckedContinuation<Role, any Error>, UInt64)? in
            guard var current = state.flights[key], current.id == flight else { return nil }
            guard let waiterID = current.waiters.keys.min(), let waiter = current.waiters.removeValue(forKey: waiterID) else {
                state.flights[key] = nil
                return nil
            }
            state.flights[key] = current
            state.joinedCount -= 1
            return (waiter, current.id)
        }
        if let (waiter, id) = next { waiter.resume(returning: .lead(flight: id)) }
    }

    /// A cancelled waiter stops waiting.
    private func leave(_ key: Key, waiterID: UInt64) {
        stopWaiting(key, waiterID: waiterID, throwing: CancellationError())
    }

    /// A waiter's deadline passed: it stops waiting, with a timeout.
    private func expire(_ key: Key, waiterID: UInt64) {
        stopWaiting(key, waiterID: waiterID, throwing: Self.waitTimedOut)
    }

    /// Removes a waiter, if it still waits, and resumes it with `error` (whoever removes it
    /// resumes it: never twice).
    private func stopWaiting(_ key: Key, waiterID: UInt64, throwing error: any Error) {
        let waiter = state.withLock { state -> CheckedContinuation<Role, any Error>? in
            state.flights[key]?.waiters.removeValue(forKey: waiterID)
        }
        waiter?.resume(throwing: error)
    }

    /// What a waiter whose deadline passed throws (the client reports its own timeout).
    static let waitTimedOut = TransportError(.timeout, "the deadline passed while waiting for an identical request in flight",
                                             requestMayHaveBeenSent: false)
}
