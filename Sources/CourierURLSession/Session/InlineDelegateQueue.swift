import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
/// The queue a ``URLSessionTransport``'s session calls its delegate on, on Linux: each call runs
/// at once, on the session's own work queue, in the order the session makes them.
///
/// FoundationNetworking hands every delegate event — the response head, each body chunk of at
/// most 16 KiB, upload progress, the completion — to `delegateQueue.addOperation { … }` from its
/// work queue (one serial queue per session, all of them on one process-wide serial queue). A
/// plain `OperationQueue` wraps each block in a `BlockOperation` and runs it on another thread:
/// about 30,000 instructions and a thread hand-off per event, and when a response arrives faster
/// than that thread takes it, the queued chunks pile up in memory with their bytes (a stalled
/// `bytes(for:)` reader grew the process by 15–101 MiB over 256 MiB, while the bytes Courier had
/// been given were already going to a spill file).
///
/// Running the block where it is added removes both: the delegate has taken a chunk (written it
/// to the client's file or spill file, or handed it to the body stream) before libcurl reads the
/// next one, as `URLSession.data(for:)`'s completion handler runs on that queue too.
///
/// The contract for the delegate, which ``SessionDelegate`` and ``TaskHandler`` keep: a call
/// does a little bookkeeping and returns. It never waits, never runs the caller's code (progress
/// handlers run on a queue of their task's), never lets go of the caller's closures there, and
/// never calls back into the session or its tasks synchronously — `cancel()`, `suspend()` and a
/// challenge's completion handler do `workQueue.sync` in Swift 6.3's FoundationNetworking, which
/// on that very queue would deadlock every URLSession in the process; they are dispatched
/// instead.
///
/// The same holds for anything else the session hands to its delegate queue: the completion
/// handlers of tasks made on ``URLSessionTransport/session`` directly, and `getAllTasks`'. That
/// is why the transport's `session` says so.
///
/// Only the block form is redirected, the form FoundationNetworking uses for every delegate
/// call; an `Operation` added as such takes `OperationQueue`'s own path. On Apple platforms,
/// where CFNetwork schedules delegate calls its own way, the transport uses a plain serial
/// `OperationQueue`.
///
/// Hand-written: no listed library offers an `OperationQueue` that runs blocks in place.
final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {  // safe: `OperationQueue` is itself `@unchecked Sendable` (thread-safe), and this subclass adds no state

    /// A queue named `label`.
    init(label: String) {
        super.init()
        name = label
        maxConcurrentOperationCount = 1
    }

    /// Runs `block` now, on the caller's thread (the session's work queue).
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
#endif

extension URLSessionTransport {
    /// The queue a transport's session calls its delegate on: an ``InlineDelegateQueue`` on
    /// FoundationNetworking, a serial `OperationQueue` elsewhere.
    static func makeDelegateQueue(label: String) -> OperationQueue {
        #if canImport(FoundationNetworking)
        return InlineDelegateQueue(label: label)
        #else
        let queue = OperationQueue()
        queue.name = label
        queue.maxConcurrentOperationCount = 1
        return queue
        #endif
    }
}
