import Foundation

/// What a download needs to continue where it stopped — later in this process, or after the app
/// was relaunched: keep it (it is `Codable`), then pass it to
/// ``APIClient/download(_:to:resumingFrom:options:progress:)``.
///
/// You get one from a failed download (``APIError/resumeToken``), and from
/// ``DownloadOptions/onCheckpoint`` while a download runs, as its bytes reach the disk, and once
/// more when it stops (its task cancelled, which is how a download is paused).
///
/// ```swift
/// do {
///     try await client.download(GetArchive(), to: fileURL, options: DownloadOptions())
/// } catch let error as APIError {
///     if let token = error.resumeToken {
///         try JSONEncoder().encode(token).write(to: tokenURL)      // resume on the next launch
///     }
/// }
/// // Later:
/// let token = try JSONDecoder().decode(DownloadResumeToken.self, from: Data(contentsOf: tokenURL))
/// try await client.download(GetArchive(), to: fileURL, resumingFrom: token)
/// ```
///
/// The token holds no secret: its URL has the values of secret query parameters redacted, as
/// in ``RequestSummary``. It names the partial file, which sits beside the destination; before
/// a byte is appended, the file is checked against the token (its length, and the SHA-256 of
/// its last block), and a file that does not match is started again from zero rather than
/// extended. The representation it continues is pinned by ``validator``: the server sends the
/// rest only if it still has the same one (`If-Range`), else the whole new one, which
/// replaces the partial file.
public struct DownloadResumeToken: Codable, Sendable, Hashable, CustomStringConvertible {
    /// What identifies the representation whose bytes are on disk (RFC 9110 §8.8): a strong
    /// entity tag, or a `Last-Modified` date strong enough to resume with.
    public enum Validator: Codable, Sendable, Hashable, CustomStringConvertible {
        /// A strong `ETag`, quotes included (`"abc123"`).
        case entityTag(String)
        /// A `Last-Modified` date, as the server wrote it, used only when the response's
        /// `Date` was at least 60 seconds later (RFC 9110 §8.8.2.2): earlier, the resource may
        /// have changed twice within the date's second.
        case lastModified(String)

        /// The value sent in `If-Range`.
        public var headerValue: String {
            switch self {
            case .entityTag(let tag): return tag
            case .lastModified(let date): return date
            }
        }

        /// `ETag "abc"` or `Last-Modified Tue, 15 Nov 1994 12:45:26 GMT`.
        public var description: String {
            switch self {
            case .entityTag(let tag): return "ETag \(tag)"
            case .lastModified(let date): return "Last-Modified \(date)"
            }
        }
    }

    /// The token format's version, so a later Courier can tell tokens it must not trust.
    public let version: Int
    /// The request's URL, the values of secret query parameters redacted: a token is refused
    /// for another URL (a pre-signed URL whose signature changed still matches).
    public let url: String
    /// The validator of the representation whose first ``bytesOnDisk`` bytes are on disk.
    public let validator: Validator
    /// The representation's complete length, in bytes.
    public let totalBytes: Int64
    /// How many bytes of it the partial file holds, checked.
    public let bytesOnDisk: Int64
    /// The partial file's name, in the destination's directory
    /// (`.<name>.<8 hex digits>.courier-download`).
    public let partialFileName: String
    /// The SHA-256 (64 hexadecimal digits) of the partial file's last block: the
    /// ``tailLength`` bytes that end at ``bytesOnDisk``.
    public let tailDigest: String
    /// The length of the block ``tailDigest`` covers (at most 64 KiB).
    public let tailLength: Int
    /// The SHA-256 (64 hexadecimal digits) of the whole representation when the server
    /// announced one (`Repr-Digest`, RFC 9530): the finished file is checked against it.
    public let representationDigest: String?

    /// The token format this Courier writes and reads.
    static let currentVersion = 1

    init(url: String, validator: Validator, totalBytes: Int64, bytesOnDisk: Int64, partialFileName: String,
         tailDigest: String, tailLength: Int, representationDigest: String?) {
        self.version = Self.currentVersion
        self.url = url
        self.validator = validator
        self.totalBytes = totalBytes
        self.bytesOnDisk = bytesOnDisk
        self.partialFileName = partialFileName
        self.tailDigest = tailDigest
        self.tailLength = tailLength
        self.representationDigest = representationDigest
    }

    /// `1048576 of 67108864 bytes of https://api.example.com/archive.zip (ETag "v1")`.
    public var description: String {
        "\(bytesOnDisk) of \(totalBytes) bytes of \(url) (\(validator))"
    }

    /// Whether the token is one this Courier can use at all: its version, a partial-file name
    /// Courier could have made (no path, the download suffix), lengths that make sense.
    var isWellFormed: Bool {
        version == Self.currentVersion
            && partialFileName.hasPrefix(".") && partialFileName.hasSuffix(".courier-download")
            && !partialFileName.contains("/") && !partialFileName.contains("\0") && partialFileName.utf8.count <= 255
            && bytesOnDisk >= 0 && bytesOnDisk <= totalBytes
            && tailLength >= 0 && Int64(tailLength) <= bytesOnDisk && tailLength <= PartialFile.tailBlockSize
            && tailDigest.utf8.count == 64
    }
}
