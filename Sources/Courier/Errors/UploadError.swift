/// Why a resumable upload stopped that no retry can fix: the server does not offer the
/// protocol when it was required, broke the protocol's rules (an offset that goes back or past
/// the file, an upload resource on another origin), announced limits the file cannot meet, or a
/// resume token does not fit the file or the request.
///
/// It is the ``APIError/underlyingError`` of an ``APIError`` of kind
/// ``APIError/Kind/invalidResponse`` (``APIError/Kind/encodingFailed`` for a token or a
/// file that does not fit, and for a file the server's limits refuse, found before any byte
/// of it was sent).
///
/// ```swift
/// } catch let error as APIError where (error.underlyingError as? UploadError)?.reason == .resumptionNotOffered {
///     try await client.upload(request, fromFile: movieURL) { _ in }   // plain, from the start
/// }
/// ```
public struct UploadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New reasons may be added: keep a `default:` in a `switch`.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// ``ResumableUploadOptions/Requirement/required`` was asked, and the server's `OPTIONS`
        /// answer does not name `application/partial-upload` in `Accept-Patch`.
        public static let resumptionNotOffered = Reason("the server does not offer resumable uploads")
        /// The file is larger than the server's `max-size` or smaller than its `min-size`.
        public static let outsideLimits = Reason("the file is outside the server's upload limits")
        /// The creation answer has no usable `Location`, or one on another origin (scheme, host
        /// and port): the file is never sent where the request did not go.
        public static let invalidUploadResource = Reason("no usable upload resource")
        /// The server's offset is missing, past the end of the file, or before one it had
        /// already acknowledged (an offset never goes back: the server lost data).
        public static let invalidOffset = Reason("unusable Upload-Offset")
        /// The server says the upload is complete, but its answer to the request that completed
        /// it was lost: the draft offers no way to get it again.
        public static let responseLost = Reason("the upload completed but its response was lost")
        /// The server lost the upload resource more often than ``ResumableUploadOptions/maxRestarts`` allows.
        public static let tooManyRestarts = Reason("the server lost the upload too many times")
        /// The file's size or modification time changed while it was uploaded: the rest would
        /// not continue what the server holds.
        public static let fileChanged = Reason("the file changed while it was uploaded")
        /// The resume token is for another URL or another file, or the file changed since.
        public static let tokenMismatch = Reason("the resume token does not fit this upload")

        /// The reason in words.
        public var description: String { name }
    }

    /// What went wrong.
    public var reason: Reason
    /// The facts: what was asked and what the server said (its values escaped and cut short).
    public var detail: String

    /// Creates an error; `detail` is escaped for logs.
    public init(_ reason: Reason, detail: String) {
        self.reason = reason
        self.detail = LogSafeText.escape(String(detail.prefix(300)))
    }

    /// `reason: detail`.
    public var description: String { detail.isEmpty ? reason.description : "\(reason): \(detail)" }
}
