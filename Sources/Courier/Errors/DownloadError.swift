/// Why a download stopped that no retry can fix: the server's answer to a resumed (range)
/// request broke RFC 9110's rules, the finished file is not the one the server's digest
/// (RFC 9530) describes, or a resume token does not fit the request.
///
/// It is the ``APIError/underlyingError`` of an ``APIError`` of kind
/// ``APIError/Kind/invalidResponse`` (or ``APIError/Kind/encodingFailed`` for a token that
/// belongs to another URL). Courier never appends bytes it cannot place: when it throws one of
/// these, the partial file holds what the error's ``APIError/resumeToken`` says (or, after a
/// digest mismatch, was removed).
///
/// ```swift
/// } catch let error as APIError where (error.underlyingError as? DownloadError)?.reason == .digestMismatch {
///     showCorruptDownload()
/// }
/// ```
public struct DownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New reasons may be added: keep a `default:` in a `switch`.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A `206 Partial Content` answer to a request that asked for no range.
        public static let unrequestedPartialContent = Reason("a 206 answer to a request without Range")
        /// A `206` whose `Content-Range` does not start where the partial file ends.
        public static let contentRangeMismatch = Reason("Content-Range does not start where the partial file ends")
        /// A `206` whose `Content-Range` is missing, malformed, impossible (its last byte at or
        /// past the length), of unknown length, for several ranges (`multipart/byteranges`), or
        /// disagreeing with its `Content-Length`.
        public static let invalidContentRange = Reason("unusable Content-Range")
        /// A `206` in a content coding (`gzip`…): its bytes are not the representation's.
        public static let encodedPartialContent = Reason("a 206 answer in a content coding")
        /// A response body longer than its `Content-Range` (or `Content-Length`) announced.
        public static let rangeOverrun = Reason("more bytes than announced")
        /// The finished file's SHA-256 is not the one the server announced (`Repr-Digest` or
        /// `Content-Digest`).
        public static let digestMismatch = Reason("the file does not match the server's digest")
        /// The resume token is for another URL, or names no partial file Courier could have made.
        public static let tokenMismatch = Reason("the resume token does not fit this request")
        /// The resource changed, or the server answered inconsistently, more often than a
        /// download restarts from zero (``DownloadOptions/maxRestarts``).
        public static let tooManyRestarts = Reason("too many restarts from zero")

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
