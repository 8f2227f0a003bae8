/// How a download resumes: by itself after a dropped connection or a timeout, and later from a
/// ``DownloadResumeToken`` (see ``APIClient/download(_:to:options:progress:)``).
///
/// ```swift
/// var options = DownloadOptions()
/// options.onCheckpoint = { token in store(token) }    // survives a crash or a kill
/// let result = try await client.download(GetArchive(), to: fileURL, options: options)
/// print(result.resumptions, "resumptions")
/// ```
public struct DownloadOptions: Sendable {
    /// Whether and how often a download resumes by itself within one call: the same choices as
    /// a resumable upload's (``TransferResumption``).
    public typealias Resumption = TransferResumption

    /// Whether the download resumes by itself after a failure. Default: as the client's
    /// ``RetryMiddleware`` says (none: never). A request whose options say
    /// ``RequestOptions/RetryBehavior/never`` never resumes by itself.
    ///
    /// The policy's ``RetryPolicy/maxAttempts`` bounds the failures *in a row without a byte
    /// received*: a resumption that brought bytes starts the count again, so a long download
    /// over a bad network completes as long as it moves. ``maxResumptions``, the budget and
    /// the request's timeout — which covers the whole download, every resumption included —
    /// bound the rest.
    public var resumption: Resumption
    /// The most resumptions in one call (default 100).
    public var maxResumptions: Int
    /// The most times one call starts the file again from zero because the representation
    /// changed or the server answered a range with something else (default 3); past it the
    /// download fails with ``DownloadError/Reason/tooManyRestarts``.
    public var maxRestarts: Int
    /// Whether a download that fails (or is cancelled: the way to pause one) keeps its partial
    /// file beside the destination when it can be resumed, and puts a token in the error
    /// (``APIError/resumeToken``). Default `true`. With `false` the partial file is removed, as
    /// ``APIClient/download(_:to:progress:)`` does.
    public var keepsPartialFile: Bool
    /// Whether the finished file is checked against the SHA-256 the server announced
    /// (`Repr-Digest`, or a `200`'s `Content-Digest`; RFC 9530) before it is moved into place
    /// (default `true`). A mismatch fails with ``DownloadError/Reason/digestMismatch`` and
    /// removes the file. The check reads the whole file once, on a thread of its own.
    public var verifiesDigest: Bool
    /// Called with a fresh token each time ``checkpointInterval`` more bytes are on disk, and
    /// once more when a download that can be resumed stops (fails or is cancelled): keep the
    /// latest, and a download killed with its process resumes from there. Called on no
    /// particular thread; keep it quick.
    public var onCheckpoint: (@Sendable (DownloadResumeToken) -> Void)?
    /// How many new bytes on disk make a checkpoint (default 8 MiB). Each one reads the last
    /// 64 KiB written back to digest them.
    public var checkpointInterval: Int64

    /// Options with the defaults described on each property.
    public init(
        resumption: Resumption = .retryMiddleware,
        maxResumptions: Int = 100,
        maxRestarts: Int = 3,
        keepsPartialFile: Bool = true,
        verifiesDigest: Bool = true,
        checkpointInterval: Int64 = 8 << 20,
        onCheckpoint: (@Sendable (DownloadResumeToken) -> Void)? = nil
    ) {
        self.resumption = resumption
        self.maxResumptions = max(0, maxResumptions)
        self.maxRestarts = max(0, maxRestarts)
        self.keepsPartialFile = keepsPartialFile
        self.verifiesDigest = verifiesDigest
        self.checkpointInterval = max(1, checkpointInterval)
        self.onCheckpoint = onCheckpoint
    }
}
