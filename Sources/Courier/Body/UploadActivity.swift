import Foundation

/// The request-body side of ``RequestContext/idleTimeout``: a transport tells it each time the
/// body moves, and the client fails the exchange with a timeout once nothing has moved for the
/// limit — the body stopped going out (a server that no longer reads), or it went out and no
/// response head followed within the limit.
///
/// Only a transport that reports (Courier's `AsyncHTTPClientTransport` from the start of the
/// exchange and for every chunk its connection takes, `URLSessionTransport` for each chunk of a
/// body it reads before the task, then from the task's start and for each `didSendBodyData`)
/// arms the watch, with ``begin()``: a transport that
/// never calls it — a custom one (this API is not public), a stub — keeps the request under its
/// total deadline alone, so an upload it carries is never cut short by a watch it does not feed.
///
/// Hand-written: the watch has to follow the transport's own notion of progress, which no
/// timer library knows about.
package final class UploadActivity: Sendable {
    private struct State {
        /// When the body last moved; `nil` until a transport began reporting.
        var lastMoved: ContinuousClock.Instant?
    }

    private let state = Locked(State())

    package init() {}

    /// A transport starts sending the body and will report each time it moves.
    package func begin() { moved() }

    /// The body moved (bytes went out, or the transport took the next chunk). Like ``begin()``,
    /// the first call arms the watch.
    package func moved() {
        let now = ContinuousClock.now
        state.withLock { $0.lastMoved = now }
    }

    /// Returns only by throwing: the idle timeout's error once a begun watch has seen no
    /// movement for `limit`, else `CancellationError` when the exchange ends first (its task
    /// is cancelled).
    func watch(_ limit: Duration) async throws -> Never {
        let limit = limit.clampedToLongestWait
        // Zero or less: no movement is soon enough (as for a request without a body, whose wait
        // for the head times out at once); and a sleep of zero would make this loop spin.
        guard limit > .zero else { throw Self.expired(limit) }
        while true {
            let last = state.withLock { $0.lastMoved }
            let now = ContinuousClock.now
            if let last, now - last >= limit { throw Self.expired(limit) }
            // Until the limit would pass since the last movement (or, unbegun, a limit from now:
            // one wake-up per limit while a transport has not begun).
            try await SystemTimeSource().sleep(until: (last ?? now) + limit)
        }
    }

    private static func expired(_ limit: Duration) -> TransportError {
        TransportError(.timeout, "the request body made no progress, or no response head came after it, for \(limit) (idle timeout)",
                       underlying: IdleTimeout.Expired(limit: limit))
    }
}
