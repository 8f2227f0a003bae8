import Foundation

/// What a resumable upload needs to continue where it stopped — later in this process, or
/// after the app was relaunched: keep it (it is `Codable`), then pass it to
/// ``APIClient/upload(_:fromFile:contentType:resumingFrom:options:progress:)`` with the same
/// request and file, or to ``APIClient/cancelUpload(_:)`` to give the upload up.
///
/// You get one from ``ResumableUploadOptions/onCheckpoint`` after every append the server
/// acknowledged and when the upload stops (its task cancelled, which is how an upload is
/// paused), and from a failed upload kept on the server (``APIError/uploadResumeToken``, with
/// ``ResumableUploadOptions/deletesOnFailure`` off).
///
/// ```swift
/// var options = ResumableUploadOptions(requirement: .required)
/// options.onCheckpoint = { token in try? JSONEncoder().encode(token).write(to: tokenURL) }
/// // Next launch:
/// let token = try JSONDecoder().decode(UploadResumeToken.self, from: Data(contentsOf: tokenURL))
/// try await client.upload(CreateVideo(), fromFile: movieURL, contentType: "video/mp4", resumingFrom: token)
/// ```
///
/// Before a byte is sent, the file is checked against the token (its length, its modification
/// time and the SHA-256 of its first and last blocks): a file that changed is refused
/// (``UploadError/Reason/tokenMismatch``) rather than appended to an upload of other bytes.
/// The server is then asked for its offset (`HEAD`), which is where the upload goes on.
///
/// **Keep it as you keep a credential**: ``uploadResource`` is the upload's own URL, and the
/// draft lets whoever holds it append to the upload or cancel it. The request's URL is kept
/// with the values of secret query parameters redacted, as in ``RequestSummary``.
public struct UploadResumeToken: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The token format's version, so a later Courier can tell tokens it must not trust.
    public let version: Int
    /// The URL of the request that created the upload (secret query values redacted): a token
    /// is refused for another URL.
    public let url: String
    /// The upload resource the server created (its `Location`), on the request's origin.
    public let uploadResource: String
    /// The file's length in bytes: the representation's.
    public let totalBytes: Int64
    /// The bytes the server had acknowledged when the token was taken.
    public let acknowledgedBytes: Int64
    /// The SHA-256 (64 hexadecimal digits) of the file's length, modification time and first
    /// and last 64 KiB.
    public let fileDigest: String
    /// The limits the server announced.
    public let limits: UploadLimits

    /// The token format this Courier writes and reads.
    static let currentVersion = 1

    init(url: String, uploadResource: String, totalBytes: Int64, acknowledgedBytes: Int64, fileDigest: String, limits: UploadLimits) {
        self.version = Self.currentVersion
        self.url = url
        self.uploadResource = uploadResource
        self.totalBytes = totalBytes
        self.acknowledgedBytes = acknowledgedBytes
        self.fileDigest = fileDigest
        self.limits = limits
    }

    /// `upload of 1048576 bytes, 524288 acknowledged, at https://…/uploads/…`.
    public var description: String {
        "upload of \(totalBytes) bytes, \(acknowledgedBytes) acknowledged, for \(LogSafeText.escape(url))"
    }

    /// The SHA-256 of the first and last 64 KiB of the file at `url` (of `length` bytes, last
    /// modified at `modified`), read
    /// on a thread of its own (never on the cooperative pool).
    static func fileDigest(of url: URL, length: Int64, modified: Date?) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let block: Int64 = 64 * 1024
                    var state = SHA256.State()
                    var head = try FileChunks(url: url, chunkSize: Int(block))
                    if let first = try head.next() { state.update(first) }
                    if length > block {
                        var tail = try FileChunks(url: url, chunkSize: Int(block), from: max(block, length - block))
                        if let last = try tail.next() { state.update(last) }
                    }
                    state.update(Array("\(length) \(modified?.timeIntervalSince1970 ?? 0)".utf8))
                    return SHA256.hex(state.finalize())
                })
            }
        }
    }
}
