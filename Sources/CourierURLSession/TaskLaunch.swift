import Courier
import Foundation

/// One request's task from the caller's side while it is being made: cancelling the caller
/// before the task exists ends the task as soon as it is made (it is then never resumed).
///
/// On FoundationNetworking tasks are made and resumed on ``queue``, not on the caller's thread:
/// `URLSession.dataTask(with:)` and `URLSessionTask.resume()` there wait for the one serial queue
/// every session in the process shares (`workQueue.sync`), which stays busy while it parses a
/// response head (quadratically in its lines) or copies a redirect's body. Waiting on it from a
/// thread of Swift's cooperative pool — two threads on a two-core machine — stalls every task
/// and timer of the process until it is free (seen: a 300 ms idle timeout firing after 21 s
/// while a 50,000-line head was parsed). One serial queue: tasks are made in the order they
/// are asked for, and however many wait, they hold one thread of libdispatch's, not the pool.
final class TaskLaunch: Sendable {
    #if canImport(FoundationNetworking)
    static let queue = DispatchQueue(label: "courier.urlsession.launch")
    #endif

    private enum State: Sendable {
        case waiting
        case cancelledEarly
        case started(TaskHandler)
        case done
    }

    private let state = Locked(State.waiting)

    /// The task's handler exists; returns whether the caller cancelled before.
    func started(_ handler: TaskHandler) -> Bool {
        state.withLock { state in
            if case .cancelledEarly = state {
                state = .done
                return true
            }
            state = .started(handler)
            return false
        }
    }

    /// The caller's task was cancelled: the handler ends the exchange, now or once it exists.
    func cancel() {
        let handler = state.withLock { state -> TaskHandler? in
            switch state {
            case .waiting:
                state = .cancelledEarly
                return nil
            case .started(let handler):
                state = .done
                return handler
            case .cancelledEarly, .done:
                return nil
            }
        }
        handler?.cancel(reason: .cancelled)
    }
}
