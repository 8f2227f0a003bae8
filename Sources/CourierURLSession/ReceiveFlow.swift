import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pauses and resumes the delivery of one task's response body, so a reader that stops reading
/// stops the transfer instead of letting the session buffer the rest in memory.
///
/// ``TaskHandler`` counts the bytes it has delivered and the reader has not taken yet; past
/// ``highWater`` it pauses, back at ``lowWater`` it resumes. How a transfer pauses depends on the
/// platform (the only platform-specific part, kept this thin):
/// - Apple platforms: `URLSessionTask.suspend()` / `resume()` (CFNetwork stops reading the
///   socket while a task is suspended). Not built or tested here (Linux CI).
/// - FoundationNetworking (Linux): `suspend()` removes the transfer from libcurl and `resume()`
///   restarts it, and libcurl's own receive pause is not reachable. What is: the session hands
///   every chunk to the delegate queue with `OperationQueue.addOperation(_:)`, on the queue that
///   drives libcurl. A streamed response therefore gets a session of its own whose delegate queue
///   (``GatedOperationQueue``) holds that call while the gate is closed: libcurl stops reading
///   the socket and TCP flow control stops the server. Only that session waits (one thread
///   parked per paused transfer); cancelling or finishing the task opens the gate first.
struct ReceiveFlow: Sendable {
    /// Bytes delivered and not yet read above which the transfer pauses (1 MiB).
    static let highWater = 1 << 20
    /// Bytes not yet read at or below which a paused transfer resumes (256 KiB).
    static let lowWater = 256 << 10

    /// Stops the transfer.
    let pause: @Sendable () -> Void
    /// Lets it go on.
    let resume: @Sendable () -> Void

    /// Pauses by closing `gate` (FoundationNetworking).
    static func gated(_ gate: ReceiveGate) -> ReceiveFlow {
        ReceiveFlow(pause: { gate.close() }, resume: { gate.open() })
    }

    /// Pauses by suspending `task` (Apple platforms).
    static func suspending(_ task: URLSessionTask) -> ReceiveFlow {
        // `URLSessionTask` is thread-safe; it is not declared Sendable on every platform.
        nonisolated(unsafe) let task = task
        return ReceiveFlow(pause: { task.suspend() }, resume: { task.resume() })
    }
}

/// A gate threads wait at while it is closed.
final class ReceiveGate: Sendable {
    private let condition = ConditionBox()

    /// Makes ``waitWhileClosed()`` wait.
    func close() { condition.set(closed: true) }

    /// Releases every waiting thread.
    func open() { condition.set(closed: false) }

    /// Returns at once when open, else when the gate opens.
    func waitWhileClosed() { condition.waitWhileClosed() }

    /// `NSCondition` with the flag it guards.
    ///
    /// `@unchecked Sendable` is safe: `closed` is read and written only while `condition` is locked.
    private final class ConditionBox: @unchecked Sendable {  // safe: `closed` only under the lock
        private let condition = NSCondition()
        private var closed = false

        func set(closed: Bool) {
            condition.lock()
            self.closed = closed
            if !closed { condition.broadcast() }
            condition.unlock()
        }

        func waitWhileClosed() {
            condition.lock()
            while closed { condition.wait() }
            condition.unlock()
        }
    }
}

/// A delegate queue that holds back new delegate calls while its gate is closed (see
/// ``ReceiveFlow``). FoundationNetworking enqueues each delegate call with
/// `addOperation(_:)` from the session's work queue, so holding that call holds libcurl.
final class GatedOperationQueue: OperationQueue, @unchecked Sendable {  // OperationQueue is thread-safe; `gate` is Sendable and immutable
    let gate: ReceiveGate

    init(gate: ReceiveGate) {
        self.gate = gate
        super.init()
        name = "courier.urlsession.streamed-delegate"
        maxConcurrentOperationCount = 1
    }

    override func addOperation(_ block: @Sendable @escaping () -> Void) {
        gate.waitWhileClosed()
        super.addOperation(block)
    }
}
