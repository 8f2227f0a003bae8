import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session a streamed response travels through on FoundationNetworking: one of its own,
/// whose delegate queue can hold libcurl while the reader lags (see ``ReceiveFlow``), so that a
/// paused transfer never holds up the transport's other requests. It shares the transport's
/// configuration (cookies, headers, limits) and delegate, and is invalidated when its task ends.
///
/// On Apple platforms a task is paused with `suspend()`, so streamed responses use the
/// transport's session and ``make(for:delegate:)`` returns `nil`.
struct StreamedLane: Sendable {
    /// The session to create the task in.
    let session: URLSession
    /// Pauses and resumes the task's delivery.
    let flow: ReceiveFlow
    /// Lets the session go once its task has ended.
    let finish: @Sendable () -> Void

    static func make(for session: URLSession, delegate: SessionDelegate) -> StreamedLane? {
        #if canImport(FoundationNetworking)
        let gate = ReceiveGate()
        let queue = GatedOperationQueue(gate: gate)
        let lane = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: queue)
        return StreamedLane(session: lane, flow: .gated(gate), finish: { lane.finishTasksAndInvalidate() })
        #else
        return nil
        #endif
    }
}
