/// Reports an upload's progress to the caller's ``TransferProgressHandler``, from the best
/// source there is.
///
/// By default it counts the bytes the body hands to the transport (``HTTPBody/reportingProgress(_:)``'s
/// wrapper calls ``handedOver(_:)``). A transport that knows what it has really sent — URLSession's
/// `didSendBodyData`, AsyncHTTPClient pulling the next chunk only once the connection has taken the
/// previous one — calls ``transportWillSend()`` before it starts and then ``sent(_:)``: from then on
/// the handed-over counts are ignored, so the caller never sees 100 % before the bytes left.
package final class UploadProgressReporter: Sendable {
    private struct State {
        var completed: Int64 = 0
        var reportedByTransport = false
    }

    /// The body's length, when known.
    package let total: Int64?
    private let handler: TransferProgressHandler
    private let state = Locked(State())

    package init(total: Int64?, handler: @escaping TransferProgressHandler) {
        self.total = total
        self.handler = handler
    }

    /// The body wrapper started a new iteration (a retry resends the body): counting restarts.
    package func iterationStarted() {
        state.withLock { state in
            if !state.reportedByTransport { state.completed = 0 }
        }
    }

    /// The body wrapper handed `count` bytes to whoever reads it; reported unless a transport
    /// reports what it sends.
    package func handedOver(_ count: Int) {
        let completed = state.withLock { state -> Int64? in
            guard !state.reportedByTransport else { return nil }
            state.completed += Int64(count)
            return state.completed
        }
        if let completed { handler(TransferProgress(completedBytes: completed, totalBytes: total)) }
    }

    /// A transport is about to send the body (again, on a retry or a redirect) and will report
    /// with ``sent(_:)``.
    package func transportWillSend() {
        state.withLock { state in
            state.reportedByTransport = true
            state.completed = 0
        }
    }

    /// A reporter to the same handler for a body that replaces this one (a middleware merged
    /// fields into it), counted against the new body's `total`.
    package func reporting(total: Int64?) -> UploadProgressReporter {
        UploadProgressReporter(total: total, handler: handler)
    }

    /// The transport has sent `totalBytesSent` bytes of the body so far. Reports that are not
    /// beyond the last one are dropped, so the caller sees a rising count.
    package func sent(_ totalBytesSent: Int64) {
        let report = state.withLock { state -> Bool in
            guard totalBytesSent > state.completed else { return false }
            state.completed = totalBytesSent
            return true
        }
        if report { handler(TransferProgress(completedBytes: totalBytesSent, totalBytes: total)) }
    }
}
