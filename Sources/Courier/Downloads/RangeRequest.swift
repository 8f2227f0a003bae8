import HTTPTypes

/// What one exchange of a download asks for, and how its answer is judged (RFC 9110 §14, §15.3.7,
/// §15.5.17): the one place that decides where a response's bytes go.
///
/// Both the client (reading a body itself) and ``ResponseBodySink`` (a transport writing the
/// body on its own queue, before the client sees the head) ask ``answer(to:)``, so a body is
/// placed the same way whoever writes it, and a body that cannot be placed is never written.
struct RangeRequest: Sendable, Equatable {
    /// The bytes on disk: the range asked for starts here. 0: the whole representation, no
    /// `Range` sent.
    var offset: Int64
    /// The validator sent in `If-Range` (with a range only).
    var validator: DownloadResumeToken.Validator?
    /// The complete length earlier responses gave, when known.
    var completeLength: Int64?
    /// The SHA-256 earlier responses announced for the representation, when they did.
    var representationDigest: String?
    /// Whether the caller's request carries a `Range` of its own: its `206` is then the answer
    /// it asked for, written from the file's start, and nothing is resumed.
    var callerAskedForRange = false

    /// Whether the request carries `Range` (and `If-Range`).
    var asksForRange: Bool { offset > 0 && validator != nil }

    /// A request for the whole representation.
    static let whole = RangeRequest(offset: 0, validator: nil, completeLength: nil, representationDigest: nil)

    /// Why an answer cannot continue the partial file and the download starts again from zero.
    enum Restart: Equatable, Sendable, CustomStringConvertible {
        /// A `200` (or another complete answer): the server ignored the range, or the
        /// representation changed (`If-Range` no longer matched). Its body is the new file.
        case wholeAnswer(status: Int)
        /// A `206` or `416` naming another representation: its validator differs, or is gone.
        case validatorChanged
        /// A `206` or `416` giving another complete length than before.
        case lengthChanged(from: Int64, to: Int64)
        /// A `416` for a range that should have been satisfiable: the representation shrank.
        case rangeNotSatisfiable
        /// The transfer failed, and what is on disk cannot be continued: the server gave no
        /// strong validator or complete length, sent it in a content coding, or the method
        /// has no ranges (only `GET` has, RFC 9110 §14.2).
        case notResumable
        /// The partial file is gone, or does not match its resume token.
        case partialFileChanged

        var description: String {
            switch self {
            case .wholeAnswer(let status): return "the server answered the range request with a complete \(status)"
            case .validatorChanged: return "the server's validator changed"
            case .lengthChanged(let from, let to): return "the representation's length changed from \(from) to \(to) bytes"
            case .rangeNotSatisfiable: return "416 Range Not Satisfiable: the representation is shorter than the partial file"
            case .notResumable: return "the transfer failed and the server gave nothing to resume with (no strong validator or length)"
            case .partialFileChanged: return "the partial file is missing or does not match its resume token"
            }
        }
    }

    /// What to do with a response.
    enum Answer: Equatable, Sendable {
        /// Write the body from `offset` on (0: the file starts again, for a complete answer);
        /// it must end by `end` (exclusive; `nil`: unknown). `completeLength`: the
        /// representation's length, when known; `restart`: set when this answer replaces the
        /// partial file (a complete answer to a range request).
        case write(offset: Int64, end: Int64?, completeLength: Int64?, restart: Restart?)
        /// The partial file is already the whole representation (a `416` saying it is exactly as
        /// long): nothing to fetch.
        case complete(length: Int64)
        /// The answer cannot continue the file and carries nothing usable: ask for the whole
        /// representation again (the partial file is dropped).
        case restart(Restart)
        /// The server broke the protocol: stop, the partial file left as it was.
        case fail(DownloadError)
        /// Not an answer this decides (an error status): the client's usual status handling.
        case notHandled
    }

    /// How to treat `head`, the answer to this request. `accepted`: whether the client accepts
    /// its status (an accepted status other than `206` and `416` is a complete answer whose
    /// body becomes the file, as for any download).
    func answer(to head: HTTPResponse, accepted: Bool) -> Answer {
        let code = head.status.code
        if callerAskedForRange {
            guard accepted else { return .notHandled }
            return .write(offset: 0, end: BodyReading.declaredLength(of: head), completeLength: nil, restart: nil)
        }
        switch code {
        case 206:
            return partialAnswer(head)
        case 416 where asksForRange:
            return unsatisfiedAnswer(head)
        default:
            guard accepted else { return .notHandled }
            let length = BodyReading.declaredLength(of: head)
            return .write(offset: 0, end: length, completeLength: length, restart: offset > 0 ? .wholeAnswer(status: code) : nil)
        }
    }

    private func partialAnswer(_ head: HTTPResponse) -> Answer {
        let fields = head.headerFields
        guard asksForRange else {
            return .fail(DownloadError(.unrequestedPartialContent, detail: "\(Self.quoted(fields[.contentRange], "Content-Range")) for a request that asked for the whole representation"))
        }
        if let coding = fields[.contentEncoding], coding.lowercased() != "identity" {
            return .fail(DownloadError(.encodedPartialContent, detail: "Content-Encoding \(Self.cut(coding))"))
        }
        if let type = fields[.contentType], type.lowercased().hasPrefix("multipart/byteranges") {
            return .fail(DownloadError(.invalidContentRange, detail: "several ranges (multipart/byteranges) for one range asked"))
        }
        guard let value = fields[.contentRange], let range = ContentRange(value),
              let first = range.first, let last = range.last, let length = range.completeLength else {
            return .fail(DownloadError(.invalidContentRange, detail: "\(Self.quoted(fields[.contentRange], "Content-Range")) for bytes=\(offset)-"))
        }
        guard first == offset else {
            return .fail(DownloadError(.contentRangeMismatch, detail: "Content-Range \(Self.cut(value)) for bytes=\(offset)-: the partial file holds \(offset) bytes"))
        }
        if let declared = fields[.contentLength].flatMap(BodyReading.contentLength), declared != range.count {
            return .fail(DownloadError(.invalidContentRange, detail: "Content-Range \(Self.cut(value)) with Content-Length \(declared)"))
        }
        if let known = completeLength, known != length { return .restart(.lengthChanged(from: known, to: length)) }
        if let validator, validator.matches(head) != true { return .restart(.validatorChanged) }
        if let known = representationDigest, let announced = RepresentationDigest.sha256(announcedBy: head), announced != known {
            return .restart(.validatorChanged)
        }
        return .write(offset: first, end: last + 1, completeLength: length, restart: nil)
    }

    private func unsatisfiedAnswer(_ head: HTTPResponse) -> Answer {
        guard let value = head.headerFields[.contentRange], let range = ContentRange(value), range.first == nil,
              let length = range.completeLength else { return .restart(.rangeNotSatisfiable) }
        if let known = completeLength, known != length { return .restart(.lengthChanged(from: known, to: length)) }
        // A 416 need not carry a validator; one that does must name the same representation.
        if let validator, validator.matches(head) == false { return .restart(.validatorChanged) }
        return length == offset ? .complete(length: length) : .restart(.rangeNotSatisfiable)
    }

    /// A server's value for an error message: quoted, cut short.
    private static func quoted(_ value: String?, _ name: String) -> String {
        value.map { "\(name) '\(cut($0))'" } ?? "no \(name)"
    }

    private static func cut(_ value: String) -> String {
        value.count > 100 ? String(value.prefix(100)) + "…" : value
    }
}
