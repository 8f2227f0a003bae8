/// Why a URLSession task was cancelled before it completed on its own.
///
/// The first reason wins (``TaskStateMachine/cancel(reason:)``): it decides what the caller is
/// told when the task ends — the session itself only ever reports "cancelled" — through
/// ``TaskHandler/map(_:reason:)``.
enum TaskCancelReason: Sendable, Equatable {
    /// The caller's task was cancelled, or its reader let go of the body before the end.
    case cancelled
    /// The request's deadline passed.
    case timeout
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
