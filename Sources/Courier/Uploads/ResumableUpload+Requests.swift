import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The requests a resumable upload makes to the upload resource, and the checks it keeps: the
/// token it resumes from, the file unchanged, the server's limits, the deadline.
extension ResumableUpload {
    /// A request to the upload resource: the caller's fields (credentials, tracing) without
    /// those that describe the representation.
    func resourceRequest(_ method: HTTPRequest.Method) -> ModifiedRequest<Base> {
        var copy = request
        copy.method = method
        copy.path = RequestPath(verbatim: resource!.absoluteString)
        copy.pathParameters = [:]
        copy.query = []
        copy.body = nil
        Self.removeRepresentationFields(from: &copy.headers)
        Self.ownExchange(&copy.options)
        return copy
    }

    /// An exchange of the protocol's own: any `2xx` is an answer (the caller's codes judge
    /// only the upload's last answer), no redirect is followed (the file goes to the upload
    /// resource on the request's origin, nowhere else; a `3xx` is an error), and no retry by
    /// the middleware (the loop resumes by the same policy, after asking the offset).
    static func ownExchange(_ options: inout RequestOptions) {
        options.acceptableStatusCodes = Set(200..<300)
        options.redirectPolicy = RedirectPolicy.none   // not `.none`: on an Optional that is nil, the default policy
        options.retry = .never
    }

    static func removeRepresentationFields(from fields: inout HTTPFields) {
        for name in [HTTPField.Name.contentType, .contentLength, .contentEncoding, .contentLanguage, .contentLocation,
                     HTTPField.Name("Content-Disposition")!, HTTPField.Name("Repr-Digest")!, HTTPField.Name("Content-Digest")!,
                     UploadProtocol.uploadComplete, UploadProtocol.uploadOffset, UploadProtocol.uploadLength,
                     // The caller's conditions and idempotency key are for the upload as a
                     // whole: on a HEAD or an append they would answer 304/412, or replay.
                     .ifMatch, .ifNoneMatch, .ifModifiedSince, .ifUnmodifiedSince, .ifRange, .range,
                     HTTPField.Name("Idempotency-Key")!] {
            fields[name] = nil
        }
    }

    /// Resumes from `token`: the same request and an unchanged file, then the server's offset.
    mutating func adopt(_ token: UploadResumeToken) throws {
        func mismatch(_ detail: String) -> APIError {
            APIError.encodingFailed(request: summary, underlying: UploadError(.tokenMismatch, detail: detail))
        }
        guard token.version == UploadResumeToken.currentVersion else { throw mismatch("token version \(token.version)") }
        guard token.url == summary.url else { throw mismatch("the token is for \(token.url)") }
        guard token.totalBytes == length, token.fileDigest == fileDigest else {
            throw mismatch("the file changed since the token was taken (\(length) bytes now, \(token.totalBytes) then)")
        }
        guard let url = URL(string: token.uploadResource), let checked = try? CheckedURL(url), checked.isSameOrigin(as: origin) else {
            throw mismatch("the upload resource is not on the request's origin")
        }
        resource = url
        limits = token.limits
        acknowledged = token.acknowledgedBytes
        offset = token.acknowledgedBytes
        knowsOffset = false
    }

    /// Fails when the file's size or modification time changed since the upload started.
    func checkFileUnchanged() throws {
        let now = FileStatus.of(path: fileURL.resolvingSymlinksInPath().path)
        guard let before = fileStatus, let now, now.size == before.size, now.modified == before.modified else {
            throw APIError.encodingFailed(request: summary, underlying: UploadError(
                .fileChanged, detail: "'\(fileURL.path)' changed while it was uploaded (\(length) bytes at the start)"))
        }
    }

    func checkLimits() throws {
        if let most = limits.maxSize, length > most {
            throw APIError.encodingFailed(request: summary, underlying: UploadError(.outsideLimits, detail: "the file has \(length) bytes; the server's max-size is \(most)"))
        }
        if let least = limits.minSize, length < least {
            throw APIError.encodingFailed(request: summary, underlying: UploadError(.outsideLimits, detail: "the file has \(length) bytes; the server's min-size is \(least)"))
        }
    }

    func token() -> UploadResumeToken {
        UploadResumeToken(url: summary.url, uploadResource: resource?.absoluteString ?? "", totalBytes: length,
                          acknowledgedBytes: acknowledged, fileDigest: fileDigest, limits: limits)
    }

    func remainingTime() throws -> Duration {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { throw APIError.timeout(request: summary, after: timeout) }
        return remaining
    }

    func invalid(_ reason: UploadError.Reason, _ detail: String) -> APIError {
        APIError.invalidResponse(request: summary, response: lastHead, underlying: UploadError(reason, detail: detail))
    }

    static func reason(of error: any Error) -> String {
        if let failure = TransferResumer.transportFailure(in: error) { return "\(failure.kind)" }
        if let api = error as? APIError, let status = api.statusCode { return "status \(status)" }
        return "\(type(of: error))"
    }

    func metadata(_ extra: Logger.Metadata) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["courier.operation": "\(request.options.operationName ?? "upload")", "courier.url": "\(summary.url)"]
        metadata.merge(extra) { $1 }
        return metadata
    }
}
