import Courier
import Dispatch

/// Where a URLSession task's progress handlers run on Linux, for a task that reports progress:
/// a serial queue of the task's own, so its reports keep their order, off the session's work
/// queue — where a handler that waits or uses URLSession would stall or deadlock every
/// URLSession request in the process — and apart from other tasks' handlers, so a slow one
/// holds back only its own request. ``TaskHandler`` also delivers the task's head and end here,
/// after the reports before them.
///
/// Progress is coalesced: the newest figures wait in one slot, and a delivery is queued only
/// when the slot was empty. A handler slower than the chunks arrive gets the newest figures,
/// rather than one queued closure per chunk — a backlog that grew with the transfer (2,049
/// reports for a 32 MiB download with a 2 ms handler) and held the request's end behind it.
final class CallerQueue: Sendable {
    /// The newest progress not handed to the caller's handlers yet.
    struct Reports: Sendable {
        /// What the session has sent of the request body.
        var sent: Int64?
        /// What the download's sink has written (and for which response).
        var received: ResponseBodySink.Written?
        var isEmpty: Bool { sent == nil && received == nil }
    }

    private let queue = DispatchQueue(label: "courier.urlsession.progress", target: .global())
    private let pending = Locked(Reports())

    /// Runs `work` after everything queued before it.
    func run(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// Leaves the newest figures for `deliver`, which runs on the queue with whatever is
    /// waiting then (queued only when nothing was waiting).
    func report(sent: Int64?, received: ResponseBodySink.Written?, deliver: @escaping @Sendable (Reports) -> Void) {
        let queuesDelivery = pending.withLock { pending -> Bool in
            let wasEmpty = pending.isEmpty
            if let sent { pending.sent = sent }
            if let received { pending.received = received }
            return wasEmpty
        }
        guard queuesDelivery else { return }
        queue.async { [pending] in
            let waiting = pending.withLock { pending -> Reports in
                defer { pending = Reports() }
                return pending
            }
            deliver(waiting)
        }
    }
}
