import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's events, as ``SessionDelegate`` routes them to the task's handler: on the
/// delegate queue, one at a time, in the session's order. Each is a little bookkeeping in the
/// state machine and the I/O it asks for; none waits (see ``InlineDelegateQueue``).
extension TaskHandler {
    /// The session has sent `totalBytesSent` bytes of the request body.
    func didSend(totalBytesSent: Int64) {
        uploadActivity?.moved()
        guard progress != nil else { return }
        report(sent: totalBytesSent)
    }

    /// The response's head arrived: it is held back with its body, or delivered with a streamed
    /// one (``TaskStateMachine/receivedHead(_:)``).
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
        switch machine.withLock({ $0.receivedHead(head) }) {
        case .refuse(let reason):
            cancel(reason: reason)
        case .buffer(let sinkStart):
            begin(sinkStart, head: head)
        case .stream(let sinkStart):
            begin(sinkStart, head: head)
            startStreaming(head: head, buffered: nil)
        }
    }

    /// Starts the download's file again for this response and sets its total; a file that cannot
    /// be started fails the request, whose head is still delivered. The sink places the body by
    /// `head` (a resumed download's `206` continues the file; see `ResponseBodySink`).
    private func begin(_ start: Machine.SinkStart?, head: HTTPResponse) {
        guard let start else { return }
        if let total = start.total { start.sink.setTotal(total) }
        do {
            try start.sink.begin(response: head)
        } catch {
            sinkFailed(error)
        }
    }

    /// Delivers `head` with a streamed body that starts with `buffered`, from the head-waiting or
    /// buffering state.
    private func startStreaming(head: HTTPResponse, buffered: Data?) {
        let (outlet, body) = BodyOutlet.open(for: self, buffered: buffered, spillDirectory: spillDirectory,
                                             maxBytes: maxStreamedBytes, isHead: isHead)
        guard let waiting = machine.withLock({ $0.streaming(to: outlet, buffered: buffered?.count ?? 0) }) else { return }
        // After the progress reports before it: a retry or redirect that follows this head
        // resets the reporter, and a stale report must not come after that.
        runCallerCode { waiting.resume(returning: (head, body)) }
    }

    /// A chunk of the body arrived (``TaskStateMachine/receivedData(_:now:)``).
    func didReceive(data: Data) {
        let action = machine.withLock { machine in
            let action = machine.receivedData(data, now: .now)
            changeFlow(action.flowChange)   // under the lock: see changeFlow(_:)
            return action
        }
        switch action {
        case .yield(let outlet, _):
            // A body that cannot be buffered has ended with that error: stop the transfer.
            if !outlet.yield(data) { cancel(reason: .bodyBufferFailed) }
        case .overflow(let head, let bytes):
            startStreaming(head: head, buffered: bytes)
        case .writeToSink(let sink, let signal):
            // On the delegate queue, in arrival order: the bytes reach the file before the
            // next chunk is taken from libcurl, so nothing piles up in memory.
            do {
                if let written = try sink.write(data) { report(received: written) }
                signal?.yield(Data())
            } catch {
                sinkFailed(error)
            }
        case .held, .dropped:
            break
        }
    }

    /// The delegate is rejecting an authentication challenge: FoundationNetworking then ends
    /// the task as "cancelled" after delivering the `401` and its body, which is a complete
    /// response, not a cancellation.
    func willRejectAuthenticationChallenge() {
        machine.withLock { $0.rejectingChallenge() }
    }

    /// The session completed the task (``TaskStateMachine/completed(error:)``).
    func didComplete(error: (any Error)?) {
        let completion = machine.withLock { machine in
            let completion = machine.completed(error: error)
            changeFlow(completion.flowChange)   // under the lock: see changeFlow(_:)
            return completion
        }
        if let token = completion.stopWatching { deadlines.remove(token) }
        completion.onFinish?()
        if let callbacks {
            // After the last progress report: the caller sees 100 % before the request returns.
            callbacks.run { [end = completion.end] in self.deliverEnd(end) }
        } else {
            deliverEnd(completion.end)
        }
    }

    /// Ends the request: its response or error, or the end of its streamed body.
    private func deliverEnd(_ end: Machine.End) {
        let callerObjects = machine.withLock { $0.releaseCallerObjects() }
        defer { withExtendedLifetime(callerObjects) {} }   // let go of here, after the end is delivered
        switch end {
        case .answerFromTask(let caller, let error):
            if error == nil, let response = task.response {
                // FoundationNetworking tells the delegate nothing of a 3xx it could not follow
                // (no usable `Location`), and keeps its body to itself; the head is the answer.
                do {
                    let head = try Self.head(from: response)
                    if let cookieStorage, let url = cookieStorage.url { Self.storeCookies(of: head, from: url, in: cookieStorage.storage) }
                    caller.resume(returning: (head, isHead ? nil : HTTPBody()))
                } catch {
                    caller.resume(throwing: error)
                }
            } else {
                caller.resume(throwing: error ?? TransportError(.other, "the task completed without a response"))
            }
        case .answerWhole(let caller, let head, let bytes, let error):
            if let error {
                caller.resume(throwing: error)
            } else if isHead {
                caller.resume(returning: (head, nil))
            } else {
                // `bytes` is handed on as it is: the client returns this `Data`.
                let body = HTTPBody.holding(bytes)
                whole?.leave(bytes, for: body)
                caller.resume(returning: (head, body))
            }
        case .finishBody(let outlet, let error):
            outlet.finish(throwing: error)
        case .nothing:
            break
        }
    }
}
