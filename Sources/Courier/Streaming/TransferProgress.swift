/// How far a download or an upload has got.
///
/// ```swift
/// try await client.download(GetArchive(), to: file) { progress in
///     print(progress.completedBytes, progress.totalBytes ?? -1, progress.fractionCompleted ?? 0)
/// }
/// ```
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes transferred so far.
    public var completedBytes: Int64
    /// The bytes expected in all, when known (`Content-Length`, or a body of known length).
    public var totalBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes`, between 0 and 1, when the total is known.
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }

    public var description: String {
        if let totalBytes { return "\(completedBytes)/\(totalBytes) bytes" }
        return "\(completedBytes) bytes"
    }
}

/// Called as a transfer makes progress: once per chunk, on no particular thread. Keep it quick.
public typealias TransferProgressHandler = @Sendable (TransferProgress) -> Void
