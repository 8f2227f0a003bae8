import Courier
import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The life of one `URLSessionDataTask` (or upload task) as a value: waiting for the head →
/// (buffering a small body →) streaming the body → finished, with what the task has been told
/// along the way (why it was cancelled, whether the transfer is paused, whether its body goes to
/// a download's file).
///
/// Each event mutates the state and returns what is to be done — resume the caller, yield to the
/// body, pause the transfer, cancel the task, write to the sink, deliver the end — without doing
/// it: ``TaskHandler`` calls the event under its one lock and does the I/O the action names
/// outside it (a pause or resume of the transfer excepted, see ``FlowChange``). The rules live
/// here, in one place that tests drive event by event, with no session, task or clock.
///
/// Generic over the caller waiting for the head and the outlet a streamed body goes to, which the
/// machine only keeps and hands back: ``TaskHandler`` uses a checked continuation and a
/// ``BodyOutlet``, the tests plain values they can compare.
///
/// It also keeps the objects that hold the caller's closures (``progress``, ``sink``, the
/// `onFinish` action) until they are let go of (see ``releaseCallerObjects()``), so that the
/// handler has one lock for everything.
struct TaskStateMachine<Caller: Sendable, Outlet: Sendable>: Sendable {
    /// The least time between two empty "the transfer is moving" chunks while a download's
    /// bytes go to its file: the client's idle timeout needs one now and then, not one per chunk,
    /// each of which would wake the body's reader.
    static var sinkSignalInterval: Duration { .milliseconds(50) }

    /// What the request asked for.
    let configuration: Configuration
    /// Where the request is; read by the tests, changed by the events only.
    private(set) var state: State = .idle
    /// Why the task was cancelled (the first reason only).
    private(set) var cancelReason: TaskCancelReason?
    /// Whether the task finished with the whole body received.
    private(set) var completedNormally = false
    /// The request's deadline in the transport's ``DeadlineWatch``, while it is watched.
    private var deadlineToken: DeadlineWatch.Token?
    /// The session delegate rejected an HTTP authentication challenge for this task.
    private var rejectedChallenge = false
    /// Body bytes delivered to the stream and not yet taken by the reader.
    private var unread = 0
    /// Whether the transfer is paused.
    private var paused = false
    /// Whether the body goes to ``sink`` instead of the stream.
    private var sinking = false
    /// Why writing to ``sink`` failed.
    private var sinkError: (any Error)?
    /// When the body stream last got an empty chunk saying "bytes went to the sink".
    private var lastSinkSignal: ContinuousClock.Instant?
    /// The objects that hold the caller's progress closures — the upload's reporter, told
    /// what the session has sent of the request body (`didSendBodyData`), and the
    /// download's sink. Let go of when the end is delivered (see ``releaseCallerObjects()``):
    /// for a task that reports progress that is on its `callbacks` queue, so whatever the
    /// closures captured is never released on the session's work queue, where a `deinit`
    /// that waited on URLSession would deadlock.
    private(set) var progress: UploadProgressReporter?
    /// Where a download's body is written as it arrives, for a status in
    /// ``Configuration/sinkStatuses``; see ``progress``.
    private(set) var sink: ResponseBodySink?
    /// Run once when the task has ended, however it ended (removes a temporary upload file).
    private var onFinish: (@Sendable () -> Void)?

    /// A machine for a task not started yet.
    init(configuration: Configuration, progress: UploadProgressReporter? = nil, sink: ResponseBodySink? = nil,
         onFinish: (@Sendable () -> Void)? = nil) {
        self.configuration = configuration
        self.progress = progress
        self.sink = sink
        self.onFinish = onFinish
    }

    // MARK: The caller's side

    /// The caller starts waiting for the head on `caller`.
    mutating func start(_ caller: Caller) -> StartAction {
        if cancelReason != nil { return .refuse(caller, onFinish: takeOnFinish()) }
        state = .waitingForHead(caller)
        return .resumeTask
    }

    /// The request's deadline is watched under `token` (added once the caller waits, so an
    /// expired deadline ends the request as a timeout).
    mutating func watchDeadline(_ token: DeadlineWatch.Token) -> WatchAction {
        if case .finished = state { return .stopWatching }
        deadlineToken = token
        return .keepWatching
    }

    /// The task was made but will not be started (its caller was answered before): never
    /// resumed, it is to be cancelled so the session forgets it. Returns the `onFinish` action
    /// to run, the first time only.
    mutating func discard() -> (@Sendable () -> Void)? {
        cancelReason = .cancelled
        state = .finished
        return takeOnFinish()
    }

    /// The request is cancelled for `reason` (from any thread): the first reason wins, and a
    /// request that completed or finished is left alone.
    mutating func cancel(reason: TaskCancelReason) -> CancelAction {
        guard cancelReason == nil, !completedNormally else { return .none }
        if case .finished = state { return .none }
        cancelReason = reason
        // A paused transfer holds the session's queue (FoundationNetworking), which
        // `cancel()` needs: let it go first.
        let flowChange = resumeIfPaused()
        // The deadline and the caller's cancellation answer a caller still waiting for the
        // head at once: the session reports the cancelled task only when its queue is free,
        // which a hostile head keeps busy for a minute (FoundationNetworking). What the
        // session delivers later finds the request finished and is dropped; the task's end
        // still releases what it holds (the `onFinish` action).
        guard reason == .timeout || reason == .cancelled else { return .cancelTask(flowChange: flowChange, answering: nil) }
        switch state {
        case .waitingForHead(let caller), .buffering(let caller, _, _):
            state = .finished
            let answer = CallerAnswer(caller: caller, error: TaskHandler.map(URLError(.cancelled), reason: reason))
            return .cancelTask(flowChange: flowChange, answering: answer)
        case .idle, .streaming, .finished:
            return .cancelTask(flowChange: flowChange, answering: nil)
        }
    }

    /// The reader took `count` bytes of the streamed body; a paused transfer resumes once the
    /// unread bytes are down to ``ReceiveFlow/lowWater``.
    mutating func consumed(_ count: Int) -> FlowChange? {
        guard configuration.pausesTransfer else { return nil }
        unread -= count
        guard paused, unread <= ReceiveFlow.lowWater else { return nil }
        paused = false
        return .resume
    }

    // MARK: The session's side (the delegate queue, in the session's order)

    /// The response's head arrived (already converted; a head that cannot be converted cancels
    /// the request instead). Decides whether the head is held back with its body or delivered
    /// with a streamed body, and whether the body goes to the download's sink.
    ///
    /// When the client collects the whole body anyway (a ``Configuration/bufferLimit``), the
    /// head is held back and the body gathered until the task completes, up to that limit: the
    /// caller is then woken once per request, as with `URLSession.data(for:)`, instead of once
    /// for the head, once per chunk and once for the end. A body that outgrows the buffer is
    /// streamed from there on (``receivedData(_:now:)``), so the size limit is still enforced
    /// while it arrives.
    mutating func receivedHead(_ head: HTTPResponse) -> HeadAction {
        let code = head.status.code   // `status` parses the head's `:status` field at each read
        let hasBody = !configuration.isHead && code != 204 && code != 304
        if hasBody, let coding = head.headerFields[.contentEncoding], !TaskHandler.decodedCodings.contains(coding.lowercased()) {
            // Never hand on bytes still encoded as if they were the content.
            return .refuse(.undecodedCoding(coding))
        }
        var sinkStart: SinkStart?
        if let sink, configuration.bufferLimit == nil, configuration.sinkStatuses.contains(code) {
            var total: Int64?
            if hasBody {
                sinking = true
                // The total for progress from the first chunk on (the client sets it only when
                // its task sees the head).
                total = BodyReading.declaredLength(of: head)
            }
            // Every accepted response starts the file again: after a retry or a redirect the
            // bytes a first response wrote there must go (a bodiless 204, 304 or HEAD answer
            // leaves it empty).
            sinkStart = SinkStart(sink: sink, total: total)
        }
        // A body declared longer than the buffer would outgrow it: it is streamed from the head
        // on, so the client holds the declared length against its limit at once — a server that
        // declares a huge body and then stalls fails at the head, not at the deadline.
        let outgrowsBuffer = hasBody && configuration.bufferLimit.map { limit in
            BodyReading.declaredLength(of: head).map { $0 > Int64(limit) } ?? false
        } ?? false
        if configuration.isHead || (configuration.bufferLimit != nil && !outgrowsBuffer) {
            if case .waitingForHead(let caller) = state { state = .buffering(caller, head, Data()) }
            return .buffer(sinkStart)
        }
        return .stream(sinkStart)
    }

    /// The head is delivered with a body streamed to `outlet`, which already holds `buffered`
    /// bytes (what was gathered before the body outgrew the buffer). Returns the caller to hand
    /// the head to; `nil` when nobody waits any more (cancelled, timed out).
    mutating func streaming(to outlet: Outlet, buffered: Int) -> Caller? {
        switch state {
        case .waitingForHead(let caller), .buffering(let caller, _, _):
            state = .streaming(outlet)
            unread = buffered
            return caller
        case .idle, .streaming, .finished:
            return nil
        }
    }

    /// A chunk of the body arrived. `now` is read only for a download's chunk (see
    /// ``sinkSignalInterval``), so that the tests choose the instants.
    mutating func receivedData(_ data: Data, now: @autoclosure () -> ContinuousClock.Instant) -> DataAction {
        switch state {
        case .streaming(let outlet):
            if sinking {
                guard sinkError == nil, cancelReason == nil, let sink else { return .dropped }
                // An empty chunk now and then tells the reader that the transfer is moving
                // (the client's idle timeout watches the body stream).
                let now = now()
                if let last = lastSinkSignal, last.duration(to: now) < Self.sinkSignalInterval { return .writeToSink(sink, signal: nil) }
                lastSinkSignal = now
                return .writeToSink(sink, signal: outlet)
            }
            guard configuration.pausesTransfer else { return .yield(outlet, flowChange: nil) }
            unread += data.count
            if !paused, cancelReason == nil, unread > ReceiveFlow.highWater {
                paused = true
                return .yield(outlet, flowChange: .pause)
            }
            return .yield(outlet, flowChange: nil)
        case .buffering(let caller, let head, var bytes):
            // Out of the state, so that appending does not copy for the state's reference
            // too (the first piece still shares FoundationNetworking's storage: the first
            // append copies it, as it must).
            state = .idle
            // The first chunk is kept as it came (no copy: often it is the whole body).
            if bytes.isEmpty { bytes = data } else { bytes.append(data) }
            state = .buffering(caller, head, bytes)
            return bytes.count > (configuration.bufferLimit ?? 0) ? .overflow(head, bytes) : .held
        case .idle, .waitingForHead, .finished:
            return .dropped
        }
    }

    /// Writing to the download's sink failed (or passed its limit), or starting its file did:
    /// the request is cancelled, and ends with this error (see ``completed(error:)``).
    mutating func sinkFailed(_ error: any Error) -> CancelAction {
        sinkError = error
        return cancel(reason: .sinkFailed)
    }

    /// The delegate is rejecting an authentication challenge: FoundationNetworking then ends
    /// the task as "cancelled" after delivering the `401` and its body, which is a complete
    /// response, not a cancellation.
    mutating func rejectingChallenge() {
        rejectedChallenge = true
    }

    /// The session completed the task, with `error` or without. Works out what the caller is
    /// told — the response, the end of its body, or why not — and what is let go of.
    mutating func completed(error: (any Error)?) -> CompletionAction {
        let ended = state
        state = .finished
        let watched = deadlineToken
        deadlineToken = nil
        var error = error
        if rejectedChallenge, cancelReason == nil, (error as? URLError)?.code == .cancelled {
            switch ended {
            case .buffering, .streaming: error = nil   // the head (and body) of the 401 arrived
            case .idle, .waitingForHead, .finished: break
            }
        }
        if error == nil { completedNormally = true }
        let flowChange = resumeIfPaused()
        let mapped = TaskHandler.endError(error, reason: cancelReason, sinkError: sinkError)
        let end: End
        switch ended {
        case .waitingForHead(let caller): end = .answerFromTask(caller, error: mapped)
        case .buffering(let caller, let head, let bytes): end = .answerWhole(caller, head, bytes, error: mapped)
        case .streaming(let outlet): end = .finishBody(outlet, error: mapped)
        case .idle, .finished: end = .nothing
        }
        return CompletionAction(flowChange: flowChange, stopWatching: watched, onFinish: takeOnFinish(), end: end)
    }

    /// Lets go of the objects that hold the caller's closures, returning them so the handler
    /// releases them where it stands (see ``progress``).
    mutating func releaseCallerObjects() -> (progress: UploadProgressReporter?, sink: ResponseBodySink?) {
        defer { (progress, sink) = (nil, nil) }
        return (progress, sink)
    }

    /// The `onFinish` action, the first time only.
    private mutating func takeOnFinish() -> (@Sendable () -> Void)? {
        defer { onFinish = nil }
        return onFinish
    }

    /// Unpauses a paused transfer: the resume to do, if it was paused.
    private mutating func resumeIfPaused() -> FlowChange? {
        guard paused else { return nil }
        paused = false
        return .resume
    }
}
