import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pauses and resumes the delivery of one task's response body, so a reader that stops reading
/// stops the transfer instead of letting the session buffer the rest in memory.
///
/// ``TaskStateMachine`` counts the bytes delivered that the reader has not taken yet; past
/// ``highWater`` it asks ``TaskHandler`` to pause, back at ``lowWater`` to resume.
///
/// Only on Apple platforms, with `URLSessionTask.suspend()` / `resume()` (CFNetwork stops
/// reading the socket while a task is suspended); not built or tested here (Linux CI). On
/// FoundationNetworking (Linux) there is no way to pause a receiving transfer: `suspend()`
/// removes the transfer from libcurl and `resume()` starts it over, libcurl's receive pause is
/// not reachable, and every session's work runs on one process-wide serial queue, so holding
/// the delivery of one task would stall every URLSession request in the process (tried and
/// measured: other requests timed out). There what the reader has not taken past 1 MiB goes to
/// a ``SpillingChunkBuffer``'s file; use `AsyncHTTPClientTransport` for slow readers.
struct ReceiveFlow: Sendable {
    /// Bytes delivered and not yet read above which the transfer pauses (1 MiB).
    static let highWater = 1 << 20
    /// Bytes not yet read at or below which a paused transfer resumes (256 KiB).
    static let lowWater = 256 << 10

    /// Stops the transfer.
    let pause: @Sendable () -> Void
    /// Lets it go on.
    let resume: @Sendable () -> Void

    /// The flow control for `task` on this platform: suspending it on Apple platforms, `nil`
    /// on FoundationNetworking (see above).
    static func forTask(_ task: URLSessionTask) -> ReceiveFlow? {
        #if canImport(FoundationNetworking)
        return nil
        #else
        // `URLSessionTask` is thread-safe; it is not declared Sendable on every platform.
        nonisolated(unsafe) let task = task
        return ReceiveFlow(pause: { task.suspend() }, resume: { task.resume() })
        #endif
    }
}
