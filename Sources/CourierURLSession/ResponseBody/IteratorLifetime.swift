import Courier

/// Ends the transfer when a reader lets go of a response body's iterator before the body's end
/// (a `break` out of `for try await`, an error thrown in the loop), while the body itself may
/// still be referenced (a `ByteStream` kept in a variable or a property). The body can be
/// iterated once only, so the rest of the transfer could never be read: left running, it would
/// pile up on disk (Linux) or hold its connection (Apple platforms) until the deadline.
final class IteratorLifetime: Sendable {
    private let handler: TaskHandler
    private let abandoned: @Sendable () -> Void
    private let ended = Locked(false)

    /// A lifetime that, ended early, cancels `handler`'s task and then runs `abandoned`.
    init(handler: TaskHandler, abandoned: @escaping @Sendable () -> Void = {}) {
        self.handler = handler
        self.abandoned = abandoned
    }

    /// The reader got to the body's end: nothing is cancelled.
    func reachedEnd() {
        ended.withLock { $0 = true }
    }

    deinit {
        guard !ended.current else { return }
        handler.cancel(reason: .cancelled)
        abandoned()
    }
}
