import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The I/O of one `URLSessionDataTask` (or upload task): it feeds the session's events and the
/// caller's to the task's ``TaskStateMachine`` and does what each returns — resumes the caller,
/// yields to the body, writes to the download's file, cancels the task. Events come from the
/// session's delegate queue — on Linux, the session's own work queue (see
/// ``InlineDelegateQueue``) —, cancellation from any thread; every transition happens under one
/// lock and continuations are resumed outside it.
///
/// On Linux the events run on the session's work queue, so nothing here waits on that queue
/// (`cancel()` is dispatched to ``cancelQueue``) or runs the caller's code: progress handlers
/// run on the task's own serial queue (``CallerQueue``), and a task that reports progress delivers its
/// head and its end there too, after the reports before them — and lets go of the caller's
/// closures there, never on the work queue.
///
/// Its properties are internal rather than private only so that the session's events can live in
/// a file of their own (`TaskHandler+SessionEvents.swift`); nothing else in the module uses them.
final class TaskHandler: Sendable {
    /// The caller waiting for the response's head.
    typealias Caller = CheckedContinuation<(HTTPResponse, HTTPBody?), any Error>
    /// The task's state machine, as this handler drives it.
    typealias Machine = TaskStateMachine<Caller, BodyOutlet>

    /// The task's state, behind one lock. One `Locked` per handler: each costs an
    /// allocation, a mutex and a lookup of its generic class's metadata, and there were three.
    let machine: Locked<Machine>
    /// The session's task: resumed, cancelled, and asked for its response when the delegate
    /// never got one.
    let task: URLSessionTask
    /// Ends the task at its deadline.
    let deadlines: DeadlineWatch
    /// A `HEAD` request: its response is delivered without a body.
    let isHead: Bool
    /// Pauses the transfer while the reader of a streamed body lags (`nil`: never paused).
    let flow: ReceiveFlow?
    /// Where a streamed body that cannot be paused spills what its reader has not taken past
    /// 1 MiB (`nil`: it stays in memory). See ``SpillingChunkBuffer``.
    let spillDirectory: URL?
    /// The body's size limit, past which a spilled body ends (`nil`: none). See
    /// ``SpillingChunkBuffer``.
    let maxStreamedBytes: Int?
    /// Where a body delivered whole is also left for the client, which then collects it without
    /// iterating it (see `WholeResponseBody`).
    let whole: WholeResponseBody?
    /// Told each time the session sends request-body bytes, for the client's idle timeout.
    let uploadActivity: UploadActivity?
    /// Where the response's cookies go, and the request URL they are for (Linux; see
    /// `URLSessionTransport.cookieStorage`).
    let cookieStorage: (storage: HTTPCookieStorage, url: URL?)?
    /// Where the caller's progress handlers run on Linux, for a task that reports progress
    /// (``CallerQueue``); `nil` elsewhere, and for a task without progress.
    let callbacks: CallerQueue?

    /// The upload's progress reporter, until the end is delivered (see ``TaskStateMachine/progress``).
    var progress: UploadProgressReporter? { machine.withLock { $0.progress } }
    /// Where a download's body is written as it arrives (on the delegate queue), for a status in
    /// `sinkStatuses` (see ``ResponseBodySink``), until the end is delivered.
    var sink: ResponseBodySink? { machine.withLock { $0.sink } }
    /// Whether the task finished with the whole body received.
    var completedNormally: Bool { machine.withLock { $0.completedNormally } }

    /// Where `task.cancel()` runs on Linux: it does `workQueue.sync`, which would deadlock on the
    /// work queue the delegate runs on. One serial queue, so that many requests ending at once
    /// (a shared deadline) do not each hold a thread waiting for the work queue.
    static let cancelQueue = DispatchQueue(label: "courier.urlsession.cancel")

    /// A handler for `task`; with a `bufferLimit`, bodies up to that size are delivered whole;
    /// a streamed body that spills ends past `maxStreamedBytes`.
    init(task: URLSessionTask, deadlines: DeadlineWatch, isHead: Bool, bufferLimit: Int? = nil, progress: UploadProgressReporter? = nil,
         flow: ReceiveFlow? = nil, sink: ResponseBodySink? = nil, sinkStatuses: Set<Int> = [], spillDirectory: URL? = nil,
         maxStreamedBytes: Int? = nil, whole: WholeResponseBody? = nil, uploadActivity: UploadActivity? = nil,
         cookieStorage: (storage: HTTPCookieStorage, url: URL?)? = nil, onFinish: (@Sendable () -> Void)? = nil) {
        self.task = task
        self.uploadActivity = uploadActivity
        self.cookieStorage = cookieStorage
        self.maxStreamedBytes = maxStreamedBytes
        self.whole = whole
        self.deadlines = deadlines
        self.spillDirectory = flow == nil ? spillDirectory : nil
        self.flow = flow
        self.isHead = isHead
        let configuration = Machine.Configuration(isHead: isHead, bufferLimit: bufferLimit, sinkStatuses: sinkStatuses, pausesTransfer: flow != nil)
        self.machine = Locked(Machine(configuration: configuration, progress: progress, sink: sink, onFinish: onFinish))
        #if canImport(FoundationNetworking)
        let reports = progress != nil || sink?.reportsProgress == true
        self.callbacks = reports ? CallerQueue() : nil
        #else
        self.callbacks = nil
        #endif
    }

    // MARK: The caller's side

    /// The caller waits on `continuation` from now on; the task starts, its deadline watched.
    func start(continuation: Caller, deadline: ContinuousClock.Instant) {
        if case .refuse(let caller, let onFinish) = machine.withLock({ $0.start(continuation) }) {
            task.cancel()   // never resumed: ends it, so the session forgets it
            onFinish?()
            caller.resume(throwing: CancellationError())
            return
        }
        // Watched once the handler waits for the head, so an expired deadline ends it as a
        // timeout. One timer for all the transport's requests (see DeadlineWatch), not a timer
        // source per request.
        let token = deadlines.add(deadline: deadline) { [weak self] in self?.cancel(reason: .timeout) }
        if machine.withLock({ $0.watchDeadline(token) }) == .stopWatching { deadlines.remove(token) }
        task.resume()
    }

    /// Ends a task that was made but will not be started (its caller was answered before):
    /// never resumed, it is cancelled so the session forgets it.
    func discard() {
        let onFinish = machine.withLock { $0.discard() }
        task.cancel()
        onFinish?()
    }

    /// Cancels the request for `reason` (from any thread); the first reason wins.
    func cancel(reason: TaskCancelReason) {
        cancelTask { $0.cancel(reason: reason) }
    }

    /// Writing to the download's file failed: the request is cancelled and ends with `error`.
    func sinkFailed(_ error: any Error) {
        cancelTask { $0.sinkFailed(error) }
    }

    /// Runs a cancelling `event` and does what it returns: the caller still waiting for the head
    /// is answered at once, and the task is cancelled.
    private func cancelTask(_ event: (inout Machine) -> Machine.CancelAction) {
        let action = machine.withLock { machine in
            let action = event(&machine)
            changeFlow(action.flowChange)   // under the lock: see changeFlow(_:)
            return action
        }
        guard case .cancelTask(_, let answer) = action else { return }
        if let answer { answer.caller.resume(throwing: answer.error) }
        #if canImport(FoundationNetworking)
        // May be called on the session's work queue (a delegate event), where `cancel()`'s
        // `workQueue.sync` would deadlock (Swift 6.3's FoundationNetworking).
        Self.cancelQueue.async { [task] in task.cancel() }
        #else
        task.cancel()
        #endif
    }

    /// The reader took `count` bytes of the streamed body; resumes a paused transfer once the
    /// unread bytes are down to ``ReceiveFlow/lowWater``.
    func consumed(_ count: Int) {
        guard flow != nil else { return }
        machine.withLock { machine in changeFlow(machine.consumed(count)) }   // under the lock: see changeFlow(_:)
    }

    /// Pauses or resumes the transfer. Called under the lock only, in the event that asked for
    /// it: pausing and resuming then take effect in the order the counts say (a resume can never
    /// overtake the pause it answers), and a paused transfer — which holds the session's queue
    /// on FoundationNetworking — is let go of before the cancellation that needs that queue.
    func changeFlow(_ change: Machine.FlowChange?) {
        switch change {
        case .pause?: flow?.pause()
        case .resume?: flow?.resume()
        case nil: break
        }
    }

    // MARK: Caller code

    /// Hands the caller's handlers what the session has sent and what the sink has written: at
    /// once without ``callbacks``, else the newest figures, in order, on that queue.
    func report(sent: Int64? = nil, received: ResponseBodySink.Written? = nil) {
        guard let callbacks else {
            deliver(CallerQueue.Reports(sent: sent, received: received))
            return
        }
        callbacks.report(sent: sent, received: received) { [self] reports in deliver(reports) }
    }

    /// Hands `reports` to the caller's handlers, while the handler still holds them.
    private func deliver(_ reports: CallerQueue.Reports) {
        if let sent = reports.sent { progress?.sent(sent) }
        if let received = reports.received { sink?.report(received) }
    }

    /// Runs `work`, which runs the caller's code (or must come after it): on ``callbacks`` when
    /// the task has one, at once otherwise.
    func runCallerCode(_ work: @escaping @Sendable () -> Void) {
        if let callbacks { callbacks.run(work) } else { work() }
    }
}
