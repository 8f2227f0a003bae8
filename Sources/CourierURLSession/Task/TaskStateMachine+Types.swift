import Courier
import Foundation
import HTTPTypes

/// The vocabulary of ``TaskStateMachine``: what it is configured with, where a request can be,
/// and the actions its events return for ``TaskHandler`` to perform.
extension TaskStateMachine {
    /// What the request asked for; fixed for the task's life.
    struct Configuration: Sendable {
        /// A `HEAD` request: the head is delivered without a body, whatever it declares.
        var isHead: Bool
        /// The most body bytes held back before the head is delivered (`nil`: stream from the
        /// head on). See ``receivedHead(_:)``.
        var bufferLimit: Int?
        /// The statuses whose body goes to the download's ``ResponseBodySink``.
        var sinkStatuses: Set<Int>
        /// Whether the transfer can be paused while the reader lags (a ``ReceiveFlow``: Apple
        /// platforms only).
        var pausesTransfer: Bool
    }

    /// Where the request is.
    enum State: Sendable {
        /// Made, not started.
        case idle
        /// Started; the caller waits for the head.
        case waitingForHead(Caller)
        /// The head arrived and is held back while the body is gathered, to be delivered whole.
        case buffering(Caller, HTTPResponse, Data)
        /// The head was delivered; the body goes to the outlet as it arrives.
        case streaming(Outlet)
        /// Ended: completed, cancelled while the caller waited, or discarded. Events after this
        /// are dropped.
        case finished
    }

    /// A pause or resume of the transfer (``ReceiveFlow``). Unlike every other action, the
    /// handler does it under its lock, in the event that asked for it: pausing and resuming then
    /// take effect in the order the counts say (a resume can never overtake the pause it
    /// answers), and a paused transfer is let go of before a cancellation reaches the session.
    enum FlowChange: Sendable, Equatable {
        case pause, resume
    }

    /// A caller to answer at once with `error`, without waiting for the session.
    struct CallerAnswer: Sendable {
        let caller: Caller
        let error: any Error
    }

    /// What to do when the caller starts waiting (``start(_:)``).
    enum StartAction: Sendable {
        /// Watch the request's deadline and resume the task.
        case resumeTask
        /// The request was cancelled before it started: cancel the task, never resumed (so the
        /// session forgets it), run `onFinish` (if it was not run already) and answer the caller
        /// with `CancellationError`.
        case refuse(Caller, onFinish: (@Sendable () -> Void)?)
    }

    /// What to do with a deadline just watched (``watchDeadline(_:)``).
    enum WatchAction: Sendable, Equatable {
        case keepWatching
        /// The request finished while the deadline was being added: remove it again.
        case stopWatching
    }

    /// What to do for a cancellation (``cancel(reason:)``, ``sinkFailed(_:)``).
    enum CancelAction: Sendable {
        /// Nothing: the request was cancelled already, completed, or finished.
        case none
        /// Do `flowChange` (under the lock), answer `answering`'s caller now, and cancel the
        /// task — off the session's work queue on FoundationNetworking
        /// (``TaskHandler/cancelQueue``).
        case cancelTask(flowChange: FlowChange?, answering: CallerAnswer?)

        /// The pause or resume this action asks for.
        var flowChange: FlowChange? {
            guard case .cancelTask(let flowChange, _) = self else { return nil }
            return flowChange
        }
    }

    /// The download's file, started again for an accepted response (`ResponseBodySink.begin()`);
    /// a file that cannot be started fails the request (``sinkFailed(_:)``).
    struct SinkStart: Sendable {
        let sink: ResponseBodySink
        /// The body's declared length, for progress from the first chunk on (`nil`: leave the
        /// total as it is — a bodiless response, or no `Content-Length`).
        let total: Int64?
    }

    /// What to do with a response head (``receivedHead(_:)``). In each case but the first, start
    /// the sink first when one is given.
    enum HeadAction: Sendable {
        /// The response cannot be handed on: cancel the request for this reason.
        case refuse(TaskCancelReason)
        /// Nothing more: the head is held back with its body (or, for `HEAD`, until the end).
        case buffer(SinkStart?)
        /// Open a streamed body and deliver the head with it (``streaming(to:buffered:)``).
        case stream(SinkStart?)
    }

    /// What to do with a chunk of the body (``receivedData(_:now:)``).
    enum DataAction: Sendable {
        /// Yield the chunk to the outlet, after `flowChange` (a pause, under the lock); an outlet
        /// that cannot take it (its spill file failed) stops the transfer
        /// (``TaskCancelReason/bodyBufferFailed``).
        case yield(Outlet, flowChange: FlowChange?)
        /// The gathered body outgrew the buffer: open a streamed body that starts with these
        /// bytes, and deliver the head with it (``streaming(to:buffered:)``).
        case overflow(HTTPResponse, Data)
        /// Write the chunk to the download's file, on the delegate queue, and report the
        /// progress; then yield an empty chunk to `signal`, if given, to say the transfer moves.
        case writeToSink(ResponseBodySink, signal: Outlet?)
        /// Nothing: the chunk was added to the held-back body.
        case held
        /// Nothing: the request is not receiving a body (finished, cancelled download, or a
        /// chunk before the head).
        case dropped

        /// The pause or resume this action asks for.
        var flowChange: FlowChange? {
            guard case .yield(_, let flowChange) = self else { return nil }
            return flowChange
        }
    }

    /// What to do when the task completed (``completed(error:)``), in this order: `flowChange`
    /// (under the lock), stop watching the deadline, run `onFinish`, then deliver `end` — after
    /// the progress reports before it, on the task's caller queue when it has one.
    struct CompletionAction: Sendable {
        let flowChange: FlowChange?
        /// The deadline to stop watching (`nil`: none was watched).
        let stopWatching: DeadlineWatch.Token?
        /// The `onFinish` action, if it was not run already.
        let onFinish: (@Sendable () -> Void)?
        let end: End
    }

    /// How a completed request ends for its caller (`error`: `nil` for a success).
    enum End: Sendable {
        /// The caller still waits for a head the delegate never got: answer with the task's own
        /// response when there is no error (FoundationNetworking tells the delegate nothing of a
        /// 3xx it could not follow), else with the error.
        case answerFromTask(Caller, error: (any Error)?)
        /// Answer with the held-back head and its whole body, or with the error.
        case answerWhole(Caller, HTTPResponse, Data, error: (any Error)?)
        /// End the streamed body, normally or with the error.
        case finishBody(Outlet, error: (any Error)?)
        /// Nothing waits (the request was answered before, or never started).
        case nothing
    }
}
