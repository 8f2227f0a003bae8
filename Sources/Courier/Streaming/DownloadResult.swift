import Foundation
import HTTPTypes

/// The outcome of ``APIClient/download(_:to:progress:)``.
public struct DownloadResult: Sendable {
    /// Where the body was written (the destination you gave).
    public var fileURL: URL
    /// The response head.
    public var response: HTTPResponse
    /// The number of bytes written.
    public var byteCount: Int64
    /// The request, for logs.
    public var request: RequestSummary
}
