import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// One request from the caller's side while its task is being made: it holds the caller's
/// continuation until the task's handler takes it, so the caller's deadline and cancellation end
/// the wait even when the task cannot be made yet. A task made after that is cancelled at once
/// and never resumed.
///
/// On FoundationNetworking tasks are made and resumed on ``queue``, not on the caller's thread:
/// `URLSession.dataTask(with:)` and `URLSessionTask.resume()` there wait for the one serial queue
/// every session in the process shares (`workQueue.sync`), which stays busy while it parses a
/// response head (quadratically in its lines: 31 s measured for 60,000 short lines) or copies a
/// redirect's body. Waiting on it from a thread of Swift's cooperative pool — two threads on a
/// two-core machine — stalls every task and timer of the process until it is free. One serial
/// queue: tasks are made in the order they are asked for, and however many wait, they hold one
/// thread of libdispatch's, not the pool.
final class TaskLaunch: Sendable {
    typealias Continuation = CheckedContinuation<(HTTPResponse, HTTPBody?), any Error>

    #if canImport(FoundationNetworking)
    static let queue = DispatchQueue(label: "courier.urlsession.launch")
    #endif

    private enum State: Sendable {
        /// The caller has not begun waiting yet (`cancelled`: its task was cancelled already).
        case notBegun(cancelled: Bool)
        /// Not started; the caller waits on the continuation, its deadline watched.
        case waiting(Continuation, DeadlineWatch.Token?)
        /// The handler has the continuation and is starting the task.
        case taken(cancelRequested: Bool)
        case started(TaskHandler)
        /// The caller was answered before the task started (its deadline, its cancellation).
        case ended
    }

    private let state = Locked(State.notBegun(cancelled: false))
    private let deadlines: DeadlineWatch

    init(deadlines: DeadlineWatch) { self.deadlines = deadlines }

    /// The caller waits on `continuation` until the task's handler takes it, or until
    /// `deadline`, whichever comes first.
    func begin(_ continuation: Continuation, deadline: ContinuousClock.Instant) {
        let cancelled = state.withLock { state -> Bool in
            if case .notBegun(cancelled: true) = state {
                state = .ended
                return true
            }
            state = .waiting(continuation, nil)
            return false
        }
        if cancelled {
            continuation.resume(throwing: CancellationError())
            return
        }
        let token = deadlines.add(deadline: deadline) { [weak self] in self?.expire() }
        let stillWaiting = state.withLock { state -> Bool in
            guard case .waiting(let continuation, nil) = state else { return false }
            state = .waiting(continuation, token)
            return true
        }
        if !stillWaiting { deadlines.remove(token) }
    }

    /// The continuation, for the handler that starts the task; `nil` when the caller was
    /// answered already (the task is then to be discarded).
    func take() -> Continuation? {
        let taken = state.withLock { state -> (Continuation, DeadlineWatch.Token?)? in
            guard case .waiting(let continuation, let token) = state else { return nil }
            state = .taken(cancelRequested: false)
            return (continuation, token)
        }
        if let token = taken?.1 { deadlines.remove(token) }
        return taken?.0
    }

    /// The handler has started the task: the caller's cancellation goes to it from now on.
    func started(_ handler: TaskHandler) {
        let cancelNow = state.withLock { state -> Bool in
            guard case .taken(let cancelRequested) = state else { return false }
            state = cancelRequested ? .ended : .started(handler)
            return cancelRequested
        }
        if cancelNow { handler.cancel(reason: .cancelled) }
    }

    /// The caller's task was cancelled.
    func cancel() {
        let (continuation, token, handler) = state.withLock { state -> (Continuation?, DeadlineWatch.Token?, TaskHandler?) in
            switch state {
            case .notBegun:
                state = .notBegun(cancelled: true)
                return (nil, nil, nil)
            case .waiting(let continuation, let token):
                state = .ended
                return (continuation, token, nil)
            case .taken:
                state = .taken(cancelRequested: true)
                return (nil, nil, nil)
            case .started(let handler):
                state = .ended
                return (nil, nil, handler)
            case .ended:
                return (nil, nil, nil)
            }
        }
        if let token { deadlines.remove(token) }
        continuation?.resume(throwing: CancellationError())
        handler?.cancel(reason: .cancelled)
    }

    /// The deadline passed before the task could be started.
    private func expire() {
        let continuation = state.withLock { state -> Continuation? in
            guard case .waiting(let continuation, _) = state else { return nil }
            state = .ended
            return continuation
        }
        continuation?.resume(throwing: TransportError(
            .timeout, "the deadline passed before the session could start the request (its queue was busy)", requestMayHaveBeenSent: false))
    }
}
