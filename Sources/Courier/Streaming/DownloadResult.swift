import Foundation
import HTTPTypes

/// The outcome of ``APIClient/download(_:to:progress:)``.
public struct DownloadResult: Sendable {
    /// Where the body was written (the destination you gave).
    public var fileURL: URL
    /// The response head (of the last exchange, when the download resumed).
    public var response: HTTPResponse
    /// The number of bytes written: the file's length.
    public var byteCount: Int64
    /// The request, for logs.
    public var request: RequestSummary
    /// How many times the download resumed by itself after a failure (a lost connection, a
    /// timeout), in this call.
    public var resumptions: Int = 0
    /// How many times the file started again from zero in this call: the representation
    /// changed, the server ignored the range, or the partial file did not match its token.
    public var restarts: Int = 0
    /// The response-body bytes received over every exchange of this call (with a resume
    /// token, the bytes already on disk are not counted).
    public var bytesReceived: Int64 = 0
    /// Whether the file was checked against a SHA-256 the server announced (RFC 9530).
    public var digestVerified: Bool = false

    /// Creates a result (downloads make their own; for tests and custom clients).
    public init(fileURL: URL, response: HTTPResponse, byteCount: Int64, request: RequestSummary,
                resumptions: Int = 0, restarts: Int = 0, bytesReceived: Int64? = nil, digestVerified: Bool = false) {
        self.fileURL = fileURL
        self.response = response
        self.byteCount = byteCount
        self.request = request
        self.resumptions = resumptions
        self.restarts = restarts
        self.bytesReceived = bytesReceived ?? byteCount
        self.digestVerified = digestVerified
    }
}
