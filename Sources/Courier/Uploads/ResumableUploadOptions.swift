/// How ``APIClient/upload(_:fromFile:contentType:options:progress:)`` uploads a file so that
/// a dropped connection costs only what it lost (the IETF resumable upload protocol; see
/// <doc:ResumableTransfers>).
///
/// ```swift
/// var options = ResumableUploadOptions(requirement: .required)
/// options.onCheckpoint = { token in saved.store(token) }   // resume after a relaunch
/// let video = try await client.upload(CreateVideo(), fromFile: movieURL, contentType: "video/mp4", options: options)
/// ```
public struct ResumableUploadOptions: Sendable {
    /// What happens when the server does not offer resumable uploads.
    public enum Requirement: Sendable, Hashable {
        /// Upload the file in one plain request, as ``APIClient/upload(_:fromFile:contentType:progress:)`` does (the default).
        case preferred
        /// Fail with ``UploadError/Reason/resumptionNotOffered`` before sending any byte of the file.
        case required
    }

    /// How Courier learns that the server offers resumable uploads.
    public enum Discovery: Sendable, Hashable {
        /// An `OPTIONS` request to the request's URL first: the server offers them when its
        /// `Accept-Patch` names `application/partial-upload` (the default). Its `Upload-Limit`
        /// is kept to from the start.
        case options
        /// No `OPTIONS` request: the server is known to offer them. Use it only when it is
        /// true: a server that does not would take the empty creation request for the whole
        /// (empty) upload.
        case assumeOffered
    }

    /// What happens when the server does not offer resumable uploads (default `.preferred`).
    public var requirement: Requirement
    /// How support is detected (default `.options`).
    public var discovery: Discovery
    /// Whether and how the upload resumes by itself after a dropped connection, a timeout or
    /// a `5xx` (default: as the client's ``RetryMiddleware`` says). The policy's
    /// ``RetryPolicy/maxAttempts`` bounds the failures in a row that moved no byte; its
    /// backoff, budget and the request's timeout (which covers the whole upload) bound the rest.
    public var resumption: TransferResumption
    /// The most resumptions in one call (default 100).
    public var maxResumptions: Int
    /// The most bytes one append carries (default: the rest of the file). The server's
    /// ``UploadLimits/maxAppendSize`` is a hard limit; its ``UploadLimits/minAppendSize``
    /// overrides a smaller value here. Over `URLSessionTransport` (the client's own transport,
    /// not one wrapped in another) appends are at most 1 MiB: FoundationNetworking holds several
    /// copies of a body it sends from memory and cannot be cut safely in one it sends from a
    /// file. Smaller appends cost a request each.
    public var appendSize: Int64?
    /// The most times one call creates a new upload resource because the server lost the
    /// previous one (`404`/`410` for it; default 1). The file is then sent again from zero.
    public var maxRestarts: Int
    /// Whether an upload that fails for good (not a cancellation) asks the server to delete
    /// its upload resource (`DELETE`, default `true`). With `false`, the error carries a
    /// token (``APIError/uploadResumeToken``) to resume it later.
    public var deletesOnFailure: Bool
    /// Called with a fresh token after every append the server acknowledged, and when an
    /// upload that can be resumed stops (fails, or its task is cancelled — the way to pause
    /// one). Keep the latest: ``APIClient/upload(_:fromFile:contentType:resumingFrom:options:progress:)``
    /// resumes from it, even after a relaunch. Called on no particular thread; keep it quick.
    public var onCheckpoint: (@Sendable (UploadResumeToken) -> Void)?

    /// Options with the defaults described on each property.
    public init(
        requirement: Requirement = .preferred,
        discovery: Discovery = .options,
        resumption: TransferResumption = .retryMiddleware,
        maxResumptions: Int = 100,
        appendSize: Int64? = nil,
        maxRestarts: Int = 1,
        deletesOnFailure: Bool = true,
        onCheckpoint: (@Sendable (UploadResumeToken) -> Void)? = nil
    ) {
        self.requirement = requirement
        self.discovery = discovery
        self.resumption = resumption
        self.maxResumptions = max(0, maxResumptions)
        self.appendSize = appendSize.map { max(1, $0) }
        self.maxRestarts = max(0, maxRestarts)
        self.deletesOnFailure = deletesOnFailure
        self.onCheckpoint = onCheckpoint
    }
}
