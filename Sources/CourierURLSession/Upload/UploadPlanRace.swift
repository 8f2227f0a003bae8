import Courier
import Foundation

/// The first of three outcomes for an upload plan made from a request body: the plan (or
/// its failure), the request's deadline, or the caller's cancellation.
///
/// A task group cannot do this: it waits for all its children before it returns, so a body
/// whose reader ignores cancellation (an upstream blocked in a call it cannot interrupt) would
/// keep the request waiting past its deadline, for ever. Here the plan is made in a task of its
/// own that the caller stops waiting for; a plan that arrives after the race was decided has
/// its temporary file removed by ``settle(_:)``'s caller.
final class UploadPlanRace: Sendable {
    private struct State {
        /// Whether an outcome was accepted; the later ones are refused.
        var settled = false
        /// The caller, once it waits.
        var waiter: CheckedContinuation<UploadPlan, any Error>?
        /// The outcome accepted before the caller waited.
        var early: Result<UploadPlan, any Error>?
    }

    private let state = Locked(State())

    /// Offers an outcome; returns whether it decided the race (`false`: another came first).
    @discardableResult
    func settle(_ outcome: Result<UploadPlan, any Error>) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<UploadPlan, any Error>?) in
            guard !state.settled else { return (false, nil) }
            state.settled = true
            guard let waiter = state.waiter else {
                state.early = outcome
                return (true, nil)
            }
            state.waiter = nil
            return (true, waiter)
        }
        waiter?.resume(with: outcome)
        return accepted
    }

    /// Waits for the outcome that decides the race.
    func outcome() async throws -> UploadPlan {
        try await withCheckedThrowingContinuation { continuation in
            let early = state.withLock { state -> Result<UploadPlan, any Error>? in
                if let early = state.early { return early }
                state.waiter = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }
    }

    /// The plan `make` makes, before `deadline`; throws a timeout
    /// ``TransportError`` at the deadline, and `CancellationError` when the caller is
    /// cancelled, without waiting for the body's reader to return.
    static func plan(before deadline: ContinuousClock.Instant,
                     make: @escaping @Sendable () async throws -> UploadPlan) async throws -> UploadPlan {
        // Already past (a retry that waited its turn): nothing was read, no task to start.
        guard ContinuousClock.now < deadline else {
            throw TransportError(.timeout, "the request's deadline passed before its body was read", requestMayHaveBeenSent: false)
        }
        let race = UploadPlanRace()
        let making = Task {
            let outcome: Result<UploadPlan, any Error>
            do { outcome = .success(try await make()) } catch { outcome = .failure(error) }
            if !race.settle(outcome), case .success(.file(let url, temporary: true)) = outcome {
                try? FileManager.default.removeItem(at: url)
            }
        }
        let timer = Task {
            try? await SystemTimeSource().sleep(until: deadline)
            guard !Task.isCancelled else { return }
            race.settle(.failure(TransportError(.timeout, "the request body was not read before the deadline (its stream stopped yielding)",
                                                requestMayHaveBeenSent: false)))
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await race.outcome()
            } onCancel: {
                race.settle(.failure(CancellationError()))
            }
        } catch {
            making.cancel()
            throw error
        }
    }
}
