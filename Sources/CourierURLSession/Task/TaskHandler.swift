import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The life of one `URLSessionDataTask` (or upload task), as a small state machine: waiting for the head →
/// (buffering a small body →) streaming the body → finished. Events come from the session's
/// delegate queue — on Linux, the session's own work queue (see ``InlineDelegateQueue``) —,
/// cancellation from any thread; every transition happens under one lock and continuations are
/// resumed outside it.
///
/// When the client collects the whole body anyway (``RequestContext/collectsResponseBody``), the
/// head is held back and the body gathered until the task completes, up to `bufferLimit` bytes:
/// the caller is then woken once per request, as with `URLSession.data(for:)`, instead of once for
/// the head, once per chunk and once for the end. A body that outgrows the buffer is streamed
/// from there on, so the size limit is still enforced while it arrives.
///
/// On Linux the events run on the session's work queue, so nothing here waits on that queue
/// (`cancel()` is dispatched to ``cancelQueue``) or runs the caller's code: progress handlers
/// run on the task's own serial queue (``CallerQueue``), and a task that reports progress delivers its
/// head and its end there too, after the reports before them — and lets go of the caller's
/// closures there, never on the work queue.
final class TaskHandler: Sendable {
    enum CancelReason: Sendable, Equatable {
        case cancelled, timeout
        /// Writing the body to the client's ``ResponseBodySink`` failed (or passed its limit).
        case sinkFailed
        /// The response is in a content coding the session did not decode.
        case undecodedCoding(String)
        /// The streamed body could not be buffered (its spill file); the body carries the error.
        case bodyBufferFailed
        /// The response's head cannot be handed on: its status is not a three-digit code, or it
        /// has more fields than a head may have. The message says which.
        case unusableHead(message: String)
    }

    private enum State: Sendable {
        case idle
        case waitingForHead(CheckedContinuation<(HTTPResponse, HTTPBody?), any Error>)
        case buffering(CheckedContinuation<(HTTPResponse, HTTPBody?), any Error>, HTTPResponse, Data)
        case streaming(BodyOutlet)
        case finished
    }

    private struct Box {
        var state: State = .idle
        var cancelReason: CancelReason?
        var completedNormally = false
        /// The request's deadline in the transport's ``DeadlineWatch``, while it is watched.
        var deadlineToken: DeadlineWatch.Token?
        /// The session delegate rejected an HTTP authentication challenge for this task.
        var rejectedChallenge = false
        /// Body bytes delivered to the stream and not yet taken by the reader.
        var unread = 0
        /// Whether ``flow`` has paused the transfer.
        var paused = false
        /// Whether the body goes to ``sink`` instead of the stream.
        var sinking = false
        /// Why writing to ``sink`` failed.
        var sinkError: (any Error)?
        /// When the body stream last got an empty chunk saying "bytes went to the sink".
        var lastSinkSignal: ContinuousClock.Instant?
        /// The objects that hold the caller's progress closures — the upload's reporter, told
        /// what the session has sent of the request body (`didSendBodyData`), and the
        /// download's sink. Let go of when the end is delivered (see ``deliverEnd(of:error:)``):
        /// for a task that reports progress that is on its `callbacks` queue, so whatever the
        /// closures captured is never released on the session's work queue, where a `deinit`
        /// that waited on URLSession would deadlock.
        var progress: UploadProgressReporter?
        var sink: ResponseBodySink?
        /// Run once when the task has ended, however it ended (removes a temporary upload file).
        var onFinish: (@Sendable () -> Void)?
    }

    /// The handler's state, behind one lock. One `Locked` per handler: each costs an
    /// allocation, a mutex and a lookup of its generic class's metadata, and there were three.
    private let box: Locked<Box>
    private let task: URLSessionTask
    /// Ends the task at its deadline.
    private let deadlines: DeadlineWatch
    private let isHead: Bool
    /// The most body bytes held back before the head is delivered (`nil`: stream from the head on).
    private let bufferLimit: Int?
    /// The upload's progress reporter, until the end is delivered (see `Box.progress`).
    private var progress: UploadProgressReporter? { box.withLock { $0.progress } }
    /// Pauses the transfer while the reader of a streamed body lags (`nil`: never paused).
    private let flow: ReceiveFlow?
    /// Where a download's body is written as it arrives (on the delegate queue), for a status in
    /// `sinkStatuses` (see ``ResponseBodySink``).
    private var sink: ResponseBodySink? { box.withLock { $0.sink } }
    private let sinkStatuses: Set<Int>
    /// Where a streamed body that cannot be paused spills what its reader has not taken past
    /// 1 MiB (`nil`: it stays in memory). See ``SpillingChunkBuffer``.
    private let spillDirectory: URL?
    /// The body's size limit, past which a spilled body ends (`nil`: none). See
    /// ``SpillingChunkBuffer``.
    private let maxStreamedBytes: Int?
    /// Where a body delivered whole is also left for the client, which then collects it without
    /// iterating it (see `WholeResponseBody`).
    private let whole: WholeResponseBody?
    /// Told each time the session sends request-body bytes, for the client's idle timeout.
    private let uploadActivity: UploadActivity?
    /// Where the response's cookies go, and the request URL they are for (Linux; see
    /// `URLSessionTransport.cookieStorage`).
    private let cookieStorage: (storage: HTTPCookieStorage, url: URL?)?

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
        self.sinkStatuses = sinkStatuses
        self.flow = flow
        self.isHead = isHead
        self.bufferLimit = bufferLimit
        var box = Box()
        box.progress = progress
        box.sink = sink
        box.onFinish = onFinish
        self.box = Locked(box)
        #if canImport(FoundationNetworking)
        let reports = progress != nil || sink?.reportsProgress == true
        self.callbacks = reports ? CallerQueue() : nil
        #else
        self.callbacks = nil
        #endif
    }

    /// Hands the caller's handlers what the session has sent and what the sink has written: at
    /// once without ``callbacks``, else the newest figures, in order, on that queue.
    private func report(sent: Int64? = nil, received: ResponseBodySink.Written? = nil) {
        guard let callbacks else {
            deliver(CallerQueue.Reports(sent: sent, received: received))
            return
        }
        callbacks.report(sent: sent, received: received) { [self] reports in deliver(reports) }
    }

    private func deliver(_ reports: CallerQueue.Reports) {
        if let sent = reports.sent { progress?.sent(sent) }
        if let received = reports.received { sink?.report(received) }
    }

    /// Where the caller's progress handlers run on Linux, for a task that reports progress
    /// (``CallerQueue``); `nil` elsewhere, and for a task without progress.
    private let callbacks: CallerQueue?

    /// Where `task.cancel()` runs on Linux: it does `workQueue.sync`, which would deadlock on the
    /// work queue the delegate runs on. One serial queue, so that many requests ending at once
    /// (a shared deadline) do not each hold a thread waiting for the work queue.
    static let cancelQueue = DispatchQueue(label: "courier.urlsession.cancel")

    /// Runs `work`, which runs the caller's code (or must come after it): on ``callbacks`` when
    /// the task has one, at once otherwise.
    private func runCallerCode(_ work: @escaping @Sendable () -> Void) {
        if let callbacks { callbacks.run(work) } else { work() }
    }

    /// Runs the `onFinish` action, the first time only.
    private func finish() {
        let action = box.withLock { box -> (@Sendable () -> Void)? in
            defer { box.onFinish = nil }
            return box.onFinish
        }
        action?()
    }

    /// The session has sent `totalBytesSent` bytes of the request body.
    func didSend(totalBytesSent: Int64) {
        uploadActivity?.moved()
        guard progress != nil else { return }
        report(sent: totalBytesSent)
    }

    func start(continuation: CheckedContinuation<(HTTPResponse, HTTPBody?), any Error>, deadline: ContinuousClock.Instant) {
        let alreadyCancelled = box.withLock { box -> Bool in
            if box.cancelReason != nil { return true }
            box.state = .waitingForHead(continuation)
            return false
        }
        if alreadyCancelled {
            task.cancel()   // never resumed: ends it, so the session forgets it
            finish()
            continuation.resume(throwing: CancellationError())
            return
        }
        // Watched once the handler waits for the head, so an expired deadline ends it as a
        // timeout. One timer for all the transport's requests (see DeadlineWatch): a timer
        // source per request cost ~15,000 instructions and three wake-ups of libdispatch's
        // timer thread.
        let token = deadlines.add(deadline: deadline) { [weak self] in self?.cancel(reason: .timeout) }
        let ended = box.withLock { box -> Bool in
            if case .finished = box.state { return true }
            box.deadlineToken = token
            return false
        }
        if ended { deadlines.remove(token) }
        task.resume()
    }

    /// Ends a task that was made but will not be started (its caller was answered before):
    /// never resumed, it is cancelled so the session forgets it.
    func discard() {
        box.withLock { box in
            box.cancelReason = .cancelled
            box.state = .finished
        }
        task.cancel()
        finish()
    }

    func cancel(reason: CancelReason) {
        let (first, abandoned) = box.withLock { box -> (Bool, CheckedContinuation<(HTTPResponse, HTTPBody?), any Error>?) in
            guard box.cancelReason == nil, !box.completedNormally else { return (false, nil) }
            if case .finished = box.state { return (false, nil) }
            box.cancelReason = reason
            // A paused transfer holds the session's queue (FoundationNetworking), which
            // `cancel()` needs: let it go first.
            if box.paused {
                box.paused = false
                flow?.resume()
            }
            // The deadline and the caller's cancellation answer a caller still waiting for the
            // head at once: the session reports the cancelled task only when its queue is free,
            // which a hostile head keeps busy for a minute (FoundationNetworking). What the
            // session delivers later finds the request finished and is dropped; the task's end
            // still releases what it holds (``finish()``).
            guard reason == .timeout || reason == .cancelled else { return (true, nil) }
            switch box.state {
            case .waitingForHead(let continuation), .buffering(let continuation, _, _):
                box.state = .finished
                return (true, continuation)
            case .idle, .streaming, .finished:
                return (true, nil)
            }
        }
        guard first else { return }
        if let abandoned { abandoned.resume(throwing: Self.map(URLError(.cancelled), reason: reason)) }
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
        guard let flow else { return }
        // Pausing and resuming happen under the lock, so they take effect in the order the
        // counts say (a resume can never overtake the pause it answers).
        box.withLock { box in
            box.unread -= count
            guard box.paused, box.unread <= ReceiveFlow.lowWater else { return }
            box.paused = false
            flow.resume()
        }
    }

    func didReceive(response: URLResponse) {
        let head: HTTPResponse
        do {
            head = try Self.head(from: response)
        } catch {
            cancel(reason: .unusableHead(message: error.message))
            return
        }
        if let cookieStorage, let url = cookieStorage.url {
            // When the head arrives, before anything is delivered, as FoundationNetworking would.
            Self.storeCookies(of: head, from: url, in: cookieStorage.storage)
        }
        let code = head.status.code   // `status` parses the head's `:status` field at each read
        let hasBody = !isHead && code != 204 && code != 304
        if hasBody, let coding = head.headerFields[.contentEncoding], !Self.decodedCodings.contains(coding.lowercased()) {
            // Never hand on bytes still encoded as if they were the content.
            cancel(reason: .undecodedCoding(coding))
            return
        }
        if let sink, bufferLimit == nil, sinkStatuses.contains(code) {
            if hasBody {
                box.withLock { $0.sinking = true }
                // The total for progress from the first chunk on (the client sets it only when
                // its task sees the head).
                if let length = BodyReading.declaredLength(of: head) { sink.setTotal(length) }
            }
            // Every accepted response starts the file again: after a retry or a redirect the
            // bytes a first response wrote there must go (a bodiless 204, 304 or HEAD answer
            // leaves it empty).
            do {
                try sink.begin()
            } catch {
                box.withLock { $0.sinkError = error }
                cancel(reason: .sinkFailed)
            }
        }
        // A body declared longer than the buffer would outgrow it: it is streamed from the head
        // on, so the client holds the declared length against its limit at once — a server that
        // declares a huge body and then stalls fails at the head, not at the deadline.
        let outgrowsBuffer = hasBody && bufferLimit.map { limit in BodyReading.declaredLength(of: head).map { $0 > Int64(limit) } ?? false } ?? false
        if isHead || (bufferLimit != nil && !outgrowsBuffer) {
            box.withLock { box in
                guard case .waitingForHead(let continuation) = box.state else { return }
                box.state = .buffering(continuation, head, Data())
            }
            return
        }
        startStreaming(head: head, buffered: nil)
    }

    /// Delivers `head` with a streamed body that starts with `buffered`, from the head-waiting or
    /// buffering state.
    private func startStreaming(head: HTTPResponse, buffered: Data?) {
        let outlet: BodyOutlet
        let body: HTTPBody?
        if let spillDirectory, !isHead {
            let buffer = SpillingChunkBuffer(maxBytes: maxStreamedBytes, directory: spillDirectory)
            if let buffered { buffer.append(buffered) }
            outlet = .spill(buffer)
            body = HTTPBody(SpilledBody(buffer: buffer, handler: self), length: .unknown, iterationBehavior: .single)
        } else {
            var streamContinuation: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation!
            let stream = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { streamContinuation = $0 }
            streamContinuation.onTermination = { [weak self] termination in
                if case .cancelled = termination { self?.cancel(reason: .cancelled) }
            }
            if let buffered { streamContinuation.yield(ArraySlice(buffered)) }
            outlet = .stream(streamContinuation)
            body = isHead ? nil : HTTPBody(StreamedBody(stream: stream, handler: self), length: .unknown, iterationBehavior: .single)
        }
        let waiting = box.withLock { box -> CheckedContinuation<(HTTPResponse, HTTPBody?), any Error>? in
            switch box.state {
            case .waitingForHead(let continuation), .buffering(let continuation, _, _):
                box.state = .streaming(outlet)
                box.unread = buffered?.count ?? 0
                return continuation
            case .idle, .streaming, .finished:
                return nil
            }
        }
        guard let waiting else { return }
        // After the progress reports before it: a retry or redirect that follows this head
        // resets the reporter, and a stale report must not come after that.
        runCallerCode { waiting.resume(returning: (head, body)) }
    }

    func didReceive(data: Data) {
        enum Next {
            case yield(BodyOutlet), overflow(HTTPResponse, Data)
            case sink(signal: BodyOutlet?), none
        }
        let next = box.withLock { box -> Next in
            switch box.state {
            case .streaming(let continuation):
                if box.sinking {
                    guard box.sinkError == nil, box.cancelReason == nil else { return .none }
                    // An empty chunk now and then tells the reader that the transfer is moving
                    // (the client's idle timeout watches the body stream).
                    let now = ContinuousClock.now
                    if let last = box.lastSinkSignal, last.duration(to: now) < .milliseconds(50) { return .sink(signal: nil) }
                    box.lastSinkSignal = now
                    return .sink(signal: continuation)
                }
                guard let flow else { return .yield(continuation) }
                box.unread += data.count
                if !box.paused, box.cancelReason == nil, box.unread > ReceiveFlow.highWater {
                    box.paused = true
                    flow.pause()   // under the lock: see consumed(_:)
                }
                return .yield(continuation)
            case .buffering(let continuation, let head, var bytes):
                // Out of the state, so that appending does not copy for the state's reference
                // too (the first piece still shares FoundationNetworking's storage: the first
                // append copies it, as it must).
                box.state = .idle
                // The first chunk is kept as it came (no copy: often it is the whole body).
                if bytes.isEmpty { bytes = data } else { bytes.append(data) }
                box.state = .buffering(continuation, head, bytes)
                return bytes.count > (bufferLimit ?? 0) ? .overflow(head, bytes) : .none
            case .idle, .waitingForHead, .finished:
                return .none
            }
        }
        switch next {
        case .yield(let outlet):
            // A body that cannot be buffered has ended with that error: stop the transfer.
            if !outlet.yield(data) { cancel(reason: .bodyBufferFailed) }
        case .overflow(let head, let bytes): startStreaming(head: head, buffered: bytes)
        case .sink(let signal):
            // On the delegate queue, in arrival order: the bytes reach the file before the
            // next chunk is taken from libcurl, so nothing piles up in memory.
            do {
                if let sink, let written = try sink.write(data) { report(received: written) }
                signal?.yield(Data())
            } catch {
                box.withLock { $0.sinkError = error }
                cancel(reason: .sinkFailed)
            }
        case .none: break
        }
    }

    /// The delegate is rejecting an authentication challenge: FoundationNetworking then ends
    /// the task as "cancelled" after delivering the `401` and its body, which is a complete
    /// response, not a cancellation.
    func willRejectAuthenticationChallenge() {
        box.withLock { $0.rejectedChallenge = true }
    }

    func didComplete(error: (any Error)?) {
        let (state, reason, error, sinkError) = box.withLock { box -> (State, CancelReason?, (any Error)?, (any Error)?) in
            let state = box.state
            box.state = .finished
            if let token = box.deadlineToken { deadlines.remove(token) }
            box.deadlineToken = nil
            var error = error
            if box.rejectedChallenge, box.cancelReason == nil, (error as? URLError)?.code == .cancelled {
                switch state {
                case .buffering, .streaming: error = nil   // the head (and body) of the 401 arrived
                case .idle, .waitingForHead, .finished: break
                }
            }
            if error == nil { box.completedNormally = true }
            if box.paused {
                box.paused = false
                flow?.resume()
            }
            return (state, box.cancelReason, error, box.sinkError)
        }
        finish()
        var mapped: (any Error)? = error.map { Self.map($0, reason: reason) }
        if mapped == nil, let reason {
            // Cancelled (a deadline, the caller, a refused coding or a failed sink) while the
            // session completed the transfer before the cancellation reached it: what arrived
            // after the cancellation may have been dropped, so this is not a success.
            mapped = Self.map(URLError(.cancelled), reason: reason)
        }
        if reason == .sinkFailed || reason == nil, let sinkError {
            // The download's own size limit is not a file failure (the client reports it as
            // `resourceTooLarge`); anything else is the destination file's.
            let kind: TransportError.Kind = sinkError is ResponseBodySink.LimitExceeded ? .other : .localFile
            mapped = TransportError(kind, "writing the downloaded body failed: \(sinkError)", underlying: sinkError)
        }
        if let callbacks {
            // After the last progress report: the caller sees 100 % before the request returns.
            callbacks.run { [mapped] in self.deliverEnd(of: state, error: mapped) }
        } else {
            deliverEnd(of: state, error: mapped)
        }
    }

    /// Ends the request in `state`: its response or `error`, or the end of its streamed body.
    private func deliverEnd(of state: State, error mapped: (any Error)?) {
        let callerObjects = box.withLock { box in
            defer { (box.progress, box.sink) = (nil, nil) }
            return (box.progress, box.sink)
        }
        defer { withExtendedLifetime(callerObjects) {} }   // let go of here, after the end is delivered
        switch state {
        case .waitingForHead(let continuation):
            if mapped == nil, let response = task.response {
                // FoundationNetworking tells the delegate nothing of a 3xx it could not follow
                // (no usable `Location`), and keeps its body to itself; the head is the answer.
                do {
                    let head = try Self.head(from: response)
                    if let cookieStorage, let url = cookieStorage.url { Self.storeCookies(of: head, from: url, in: cookieStorage.storage) }
                    continuation.resume(returning: (head, isHead ? nil : HTTPBody()))
                } catch {
                    continuation.resume(throwing: error)
                }
            } else {
                continuation.resume(throwing: mapped ?? TransportError(.other, "the task completed without a response"))
            }
        case .buffering(let continuation, let head, let bytes):
            if let mapped {
                continuation.resume(throwing: mapped)
            } else {
                if isHead {
                    continuation.resume(returning: (head, nil))
                } else {
                    // `bytes` is handed on as it is: the client returns this `Data`.
                    let body = HTTPBody.holding(bytes)
                    whole?.leave(bytes, for: body)
                    continuation.resume(returning: (head, body))
                }
            }
        case .streaming(let outlet):
            outlet.finish(throwing: mapped)
        case .idle, .finished:
            break
        }
    }

    /// Whether the task finished with the whole body received.
    var completedNormally: Bool { box.withLock { $0.completedNormally } }
}
