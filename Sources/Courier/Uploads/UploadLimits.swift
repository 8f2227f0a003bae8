/// The limits a server announces for a resumable upload (its `Upload-Limit` field), which
/// Courier keeps to: it does not start an upload larger than ``maxSize`` and cuts the file into
/// appends no larger than ``maxAppendSize``.
///
/// A limit the server did not announce is `nil`.
public struct UploadLimits: Sendable, Hashable, Codable {
    /// The largest representation the server accepts, in bytes (`max-size`).
    public var maxSize: Int64?
    /// The smallest representation the server accepts, in bytes (`min-size`).
    public var minSize: Int64?
    /// The most content one creation or append request may carry, in bytes (`max-append-size`).
    public var maxAppendSize: Int64?
    /// The least content an append that does not complete the upload may carry, in bytes
    /// (`min-append-size`).
    public var minAppendSize: Int64?
    /// How long the upload resource lives after the response that announced it, in seconds
    /// (`max-age`).
    public var maxAge: Int64?

    /// Limits; every one defaults to none.
    public init(maxSize: Int64? = nil, minSize: Int64? = nil, maxAppendSize: Int64? = nil, minAppendSize: Int64? = nil, maxAge: Int64? = nil) {
        self.maxSize = maxSize
        self.minSize = minSize
        self.maxAppendSize = maxAppendSize
        self.minAppendSize = minAppendSize
        self.maxAge = maxAge
    }

    /// The limits an `Upload-Limit` field value gives (`max-size=1000000, max-append-size=65536`);
    /// `nil` when the field must be ignored: it is not a Structured Dictionary, or one of the
    /// keys above has a value that is not a non-negative Integer. Unknown keys are skipped.
    public init?(field: String) {
        guard let members = StructuredFieldReader.dictionary(field) else { return nil }
        self.init()
        for (key, value) in members {
            let path: WritableKeyPath<UploadLimits, Int64?>
            switch key {
            case "max-size": path = \.maxSize
            case "min-size": path = \.minSize
            case "max-append-size": path = \.maxAppendSize
            case "min-append-size": path = \.minAppendSize
            case "max-age": path = \.maxAge
            default: continue
            }
            guard case .integer(let number) = value, number >= 0 else { return nil }
            self[keyPath: path] = number
        }
    }

    /// These limits with any that `newer` announces in their place.
    func updated(by newer: UploadLimits?) -> UploadLimits {
        guard let newer else { return self }
        return UploadLimits(maxSize: newer.maxSize ?? maxSize, minSize: newer.minSize ?? minSize,
                            maxAppendSize: newer.maxAppendSize ?? maxAppendSize, minAppendSize: newer.minAppendSize ?? minAppendSize,
                            maxAge: newer.maxAge ?? maxAge)
    }
}
