import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// One resumable upload of a file, from the first request to the server's answer for the whole
/// representation (``UploadProtocol`` has the draft's vocabulary). Every exchange is an
/// ordinary request through the client's middleware and transport, so it works the same over
/// every transport.
///
/// The steps:
/// - Discovery: `OPTIONS` on the request's URL; without `application/partial-upload` in its
///   `Accept-Patch`, the file goes in one plain request (or the call fails, when required).
/// - Creation: the caller's request, empty, with `Upload-Complete: ?0` and `Upload-Length`;
///   the `201`'s `Location` names the upload resource (on the request's origin only).
/// - Appends: `PATCH` with `application/partial-upload`, `Upload-Offset` and
///   `Upload-Complete`, the file read from that offset; the last one's answer is the upload's.
/// - After a dropped connection, a timeout or a `5xx` (as the resumption policy allows, after
///   its backoff): `HEAD` for the server's offset, then the appends go on from it. A `409`
///   gives the offset directly. An offset never goes back (the draft's rule): one that does,
///   or passes the file's end, fails the upload rather than sending a mixed file.
/// - A failure for good deletes the upload resource (`DELETE`) or keeps it with a token.
struct ResumableUpload<Base: APIRequest> {
    private let client: APIClient
    private let request: ModifiedRequest<Base>
    private let fileURL: URL
    private let contentType: String
    private let options: ResumableUploadOptions
    private let progress: TransferProgressHandler?
    private let resumer: TransferResumer?
    private let logger: Logger
    /// The creation request, for errors and the token.
    private let summary: RequestSummary
    /// The creation request's URL, against which a relative `Location` resolves, and its
    /// origin: the upload resource must be on it.
    private let target: URL
    private let origin: CheckedURL
    private let timeout: Duration
    private let deadline: ContinuousClock.Instant

    private var length: Int64 = 0
    private var fileDigest = ""
    /// The file's size and modification time when the upload started: checked before each
    /// append, so a file changed in between fails instead of mixing two versions.
    private var fileStatus: FileStatus?
    /// Whether every byte of an append with `Upload-Complete: ?1` went to the transport: after
    /// that, the server may have finished (and freed the upload resource), so a lost resource is
    /// a lost answer, never a reason to upload again. Before it, the server cannot have.
    private var sentCompletion = false
    /// The bytes the transport has taken of the current append.
    private let handedOver = Locked<Int64>(0)
    private var limits = UploadLimits()
    /// The upload resource, once created.
    private var resource: URL?
    /// Where the next append starts: the server's offset.
    private var offset: Int64 = 0
    /// The highest offset the server acknowledged: a later one below it means lost data.
    private var acknowledged: Int64 = 0
    /// Whether ``offset`` is the server's (false after a failure: ask with `HEAD` first).
    private var knowsOffset = true
    /// Whether the server has the whole representation (its answer is the upload's).
    private var completedOnServer = false
    private var resumptions = 0
    private var restarts = 0
    private var failuresInARow = 0
    /// ``acknowledged`` at the last failure: a failure after progress starts the count again.
    private var acknowledgedAtLastFailure: Int64 = -1
    private var lastHead: HTTPResponse?
    /// The most bytes progress has reported.
    private let reported = Locked<Int64>(-1)

    init(client: APIClient, request: Base, fileURL: URL, contentType: String, options: ResumableUploadOptions,
         progress: TransferProgressHandler?) throws {
        var modified = ModifiedRequest(request)
        modified.body = nil
        let (head, _) = try client.prepare(modified)
        self.client = client
        self.request = modified
        self.fileURL = fileURL
        self.contentType = contentType
        self.options = options
        self.progress = progress
        self.summary = client.summary(of: head, operationName: modified.options.operationName)
        self.logger = client.configuration.logger
        self.timeout = (modified.options.timeout ?? client.configuration.timeout).clampedToLongestWait
        self.deadline = ContinuousClock.now.advanced(by: timeout)
        let target = "\(head.scheme ?? "https")://\(head.authority ?? "")\(head.path ?? "/")"
        do {
            self.origin = try CheckedURL(string: target)
        } catch {
            throw APIError.encodingFailed(request: summary, underlying: error)
        }
        guard let url = URL(string: target) else { throw APIError.invalidURL(summary.url, reason: "not a URL Foundation can read") }
        self.target = url
        self.resumer = modified.options.retry == .never ? nil : options.resumption.resumer(on: client)
    }

    // MARK: The upload

    mutating func run(from token: UploadResumeToken?) async throws -> Base.Response {
        do {
            do {
                length = Int64(try FileChunks.size(of: fileURL))
                fileStatus = FileStatus.of(path: fileURL.resolvingSymlinksInPath().path)
                fileDigest = try await UploadResumeToken.fileDigest(of: fileURL, length: length, modified: fileStatus?.modified)
            } catch {
                throw APIError.encodingFailed(request: summary, underlying: error)
            }
            if let token {
                try adopt(token)
            } else if options.discovery == .options, !(try await discover()) {
                guard options.requirement == .preferred else {
                    throw APIError.invalidResponse(request: summary, response: lastHead, underlying: UploadError(
                        .resumptionNotOffered, detail: "OPTIONS answered \(lastHead.map { "\($0.status.code)" } ?? "nothing") without application/partial-upload in Accept-Patch"))
                }
                logger.debug("upload not resumable: the server does not offer \(UploadProtocol.draft)", metadata: metadata([:]))
                return try await client.upload(request, fromFile: fileURL, contentType: contentType, progress: progress ?? { _ in })
            } else {
                try checkLimits()
            }
            return try await transfer()
        } catch {
            throw await stop(after: error)
        }
    }

    /// Exchanges until the server answers for the whole representation.
    private mutating func transfer() async throws -> Base.Response {
        while true {
            try Task.checkCancellation()
            do {
                if resource == nil {
                    try await create()
                } else if !knowsOffset {
                    try await retrieveOffset()
                } else if let answer = try await append() {
                    return answer
                }
            } catch {
                try await recover(from: error)
            }
        }
    }

    /// Asks the target whether it offers resumable uploads (`OPTIONS`), keeping its limits.
    private mutating func discover() async throws -> Bool {
        var probe = request
        probe.method = .options
        Self.removeRepresentationFields(from: &probe.headers)
        probe.options.timeout = try remainingTime()
        Self.ownExchange(&probe.options)
        do {
            let (head, _) = try await client.data(for: probe)
            lastHead = head
            guard UploadProtocol.offersResumption(head) else { return false }
            limits = limits.updated(by: UploadProtocol.limits(in: head))
            return true
        } catch let error as APIError where error.kind == .httpError {
            lastHead = error.response   // 404, 405, 501: not offered
            return false
        }
    }

    /// Creates the upload resource: the caller's request, empty, `Upload-Complete: ?0`.
    private mutating func create() async throws {
        var creation = request
        creation.body = .data(Data(), contentType: contentType)
        creation.headers[UploadProtocol.uploadComplete] = UploadProtocol.boolean(false)
        creation.headers[UploadProtocol.uploadLength] = String(length)
        creation.options.timeout = try remainingTime()
        Self.ownExchange(&creation.options)
        let (head, _) = try await client.data(for: creation)
        lastHead = head
        guard let location = head.headerFields[.location], !location.isEmpty else {
            throw invalid(.invalidUploadResource, "the creation's \(head.status.code) answer has no Location")
        }
        guard let url = URL(string: location, relativeTo: target)?.absoluteURL,
              let checked = try? CheckedURL(url), checked.isSameOrigin(as: origin) else {
            throw invalid(.invalidUploadResource, "Location \(location.prefix(120)) is not on \(origin.scheme)://\(origin.authority)")
        }
        resource = url
        offset = 0
        acknowledged = 0
        knowsOffset = true
        limits = limits.updated(by: UploadProtocol.limits(in: head))
        try checkLimits()
        logger.debug("upload resource created", metadata: metadata(["courier.total": "\(length)"]))
        options.onCheckpoint?(token())
    }

    /// Asks the upload resource for its offset (`HEAD`).
    private mutating func retrieveOffset() async throws {
        var probe = resourceRequest(.head)
        probe.options.timeout = try remainingTime()
        let (head, _) = try await client.data(for: probe)
        lastHead = head
        if let announced = UploadProtocol.length(in: head), announced != length {
            throw invalid(.invalidUploadResource, "the upload resource holds an upload of \(announced) bytes; the file has \(length)")
        }
        guard let current = UploadProtocol.offset(in: head) else {
            throw invalid(.invalidOffset, "the HEAD answer (\(head.status.code)) has no Upload-Offset")
        }
        if UploadProtocol.complete(in: head) == true {
            completedOnServer = true
            throw invalid(.responseLost, "the server holds all \(current) bytes; its answer to the last append did not arrive")
        }
        try accept(current, from: "the HEAD answer")
        limits = limits.updated(by: UploadProtocol.limits(in: head))
        knowsOffset = true
    }

    /// Appends from ``offset``: the rest of the file, or as much as the limits allow. Returns
    /// the upload's answer once the server has the whole representation.
    private mutating func append() async throws -> Base.Response? {
        let start = offset
        // The server's maximum is a hard limit; the caller's and the transport's preferences
        // give way to the server's minimum.
        var most = min(options.appendSize ?? .max, limits.maxAppendSize ?? .max)
        if let bounded = client.transport as? any PrefersBoundedRequestBodies { most = min(most, Int64(max(1, bounded.preferredLargestBody))) }
        if let least = limits.minAppendSize, least > most {
            guard least <= limits.maxAppendSize ?? .max else {
                throw invalid(.outsideLimits, "the server's min-append-size \(least) is above its max-append-size \(limits.maxAppendSize ?? 0)")
            }
            most = least
        }
        guard most > 0 else { throw invalid(.outsideLimits, "max-append-size is 0") }
        let end = start + min(most, length - start)
        let completes = end == length
        try checkFileUnchanged()
        var patch = resourceRequest(.patch)
        patch.headers[UploadProtocol.uploadOffset] = String(start)
        patch.headers[UploadProtocol.uploadComplete] = UploadProtocol.boolean(completes)
        var body = FileRangeBody(url: fileURL, offset: start, length: end - start, chunkSize: 64 * 1024).makeBody()
        handedOver.withLock { $0 = 0 }
        let total = length
        let reported = reported
        let handedOver = handedOver
        let progress = progress
        body = body.reportingProgress { sent in
            handedOver.withLock { $0 = max($0, sent.completedBytes) }
            if let progress {
                // Never back: after a cut the server's offset may be below what the transport had
                // taken (the bytes in flight), and those are sent again without being reported twice.
                let completed = start + sent.completedBytes
                let advanced = reported.withLock { last -> Bool in
                    guard completed > last else { return false }
                    last = completed
                    return true
                }
                if advanced { progress(TransferProgress(completedBytes: completed, totalBytes: total)) }
            }
        }
        patch.body = .stream(body, contentType: UploadProtocol.partialUpload)
        patch.options.timeout = try remainingTime()
        let callersCodes = patch.options.acceptableStatusCodes
        Self.ownExchange(&patch.options)
        if completes {
            // The caller's codes judge the upload's answer only.
            patch.options.acceptableStatusCodes = callersCodes
        }
        let exchange: APIClient.Exchange
        do {
            exchange = try await client.perform(patch, timed: false)
        } catch {
            sentCompletion = sentCompletion || (completes && handedOver.withLock { $0 } >= end - start)
            throw error
        }
        lastHead = exchange.head
        let saysComplete = UploadProtocol.complete(in: exchange.head)
        if completes {
            guard saysComplete != false else {
                throw invalid(.invalidOffset, "the append that completes the upload was answered \(exchange.head.status.code) with Upload-Complete: ?0")
            }
            completedOnServer = true
            return try client.decode(patch, from: exchange)
        }
        guard saysComplete != true else {
            throw invalid(.invalidOffset, "the append at \(start) (\(end - start) of \(length) bytes, not the last) was answered as the whole upload's")
        }
        try accept(UploadProtocol.offset(in: exchange.head) ?? end, from: "the append's answer")
        guard offset > start else {
            // A success that took nothing: counted like a failure, or a server answering every
            // append so would keep the upload going forever.
            try countFailure(invalid(.invalidOffset, "\(failuresInARow + 1) appends in a row at \(start) answered \(exchange.head.status.code) without taking a byte"))
            return nil
        }
        failuresInARow = 0
        options.onCheckpoint?(token())
        return nil
    }

    /// Takes `current` as the server's offset, when it is one: never past the file, never
    /// before an offset the server acknowledged.
    private mutating func accept(_ current: Int64, from source: String) throws {
        guard current <= length else {
            throw invalid(.invalidOffset, "\(source) says \(current) bytes, past the file's \(length)")
        }
        guard current >= acknowledged else {
            throw invalid(.invalidOffset, "\(source) says \(current) bytes, after \(acknowledged) were acknowledged")
        }
        offset = current
        acknowledged = current
    }

    // MARK: Failures

    /// Goes on after `error` when the protocol and the policy allow; throws otherwise.
    private mutating func recover(from error: any Error) async throws {
        if error is CancellationError || Task.isCancelled { throw error }
        if let api = error as? APIError, api.kind == .httpError, let head = api.response {
            lastHead = head
            // The server's answer for the whole representation: its processing failed.
            if UploadProtocol.complete(in: head) == true {
                completedOnServer = true
                throw error
            }
            let status = head.status.code
            if resource != nil, status == 409, let current = UploadProtocol.offset(in: head) {
                try accept(current, from: "the 409 answer")
                knowsOffset = true
                try countFailure(error)
                return
            }
            if resource != nil, sentCompletion, status == 404 || status == 410 {
                throw invalid(.responseLost, "the upload resource is gone (\(status)) after the append that completed it was sent; its answer did not arrive")
            }
            if resource != nil, status == 404 || status == 410 {
                try restart(after: error)
                return
            }
            guard let resumer, resumer.policy.retryableStatuses.contains(status), status >= 500 else { throw error }
        } else {
            guard let resumer, let failure = TransferResumer.transportFailure(in: error), resumer.policy.retryableErrors.contains(failure.kind) else {
                throw error
            }
        }
        try await resume(after: error)
    }

    /// Counts a failure that moved no byte since the last one; past the policy's attempts (3
    /// without one), throws `error`.
    private mutating func countFailure(_ error: any Error) throws {
        failuresInARow = acknowledged > acknowledgedAtLastFailure ? 1 : failuresInARow + 1
        acknowledgedAtLastFailure = acknowledged
        guard failuresInARow < (resumer?.policy.maxAttempts ?? 3) else { throw error }
    }

    /// Waits the policy's backoff, then asks for the offset before the next append.
    private mutating func resume(after error: any Error) async throws {
        guard let resumer, resumptions < options.maxResumptions else { throw error }
        try countFailure(error)
        let wait = resumer.policy.backoff(beforeRetry: failuresInARow)
        guard wait < ContinuousClock.now.duration(to: deadline), resumer.budget?.tryWithdraw() ?? true else { throw error }
        resumptions += 1
        knowsOffset = false
        logger.info("upload resuming", metadata: metadata([
            "courier.resumption": "\(resumptions)", "courier.offset": "\(acknowledged)", "courier.total": "\(length)",
            "courier.retry_delay_ms": "\(Int(wait.secondsValue * 1000))", "courier.reason": "\(Self.reason(of: error))",
        ]))
        if wait > .zero { try await resumer.clock.sleep(for: wait) }
    }

    /// The server lost the upload resource (`404`/`410`): a new one, from zero, as the options allow.
    private mutating func restart(after error: any Error) throws {
        restarts += 1
        guard restarts <= options.maxRestarts else {
            throw invalid(.tooManyRestarts, "the upload resource is gone (\(lastHead.map { "\($0.status.code)" } ?? "?")) after \(restarts - 1) restarts")
        }
        logger.info("upload starting again: the server lost the upload resource", metadata: metadata(["courier.restarts": "\(restarts)"]))
        resource = nil
        offset = 0
        acknowledged = 0
        acknowledgedAtLastFailure = -1
        failuresInARow = 0
        knowsOffset = true
    }

    /// Deletes the upload resource or keeps it with a token, and returns the error to throw.
    private mutating func stop(after error: any Error) async -> any Error {
        let cancelled = error is CancellationError || Task.isCancelled
        var kept: UploadResumeToken?
        if resource != nil, !completedOnServer {
            if cancelled || !options.deletesOnFailure {
                kept = token()
                options.onCheckpoint?(kept!)
            } else {
                await deleteResource()
            }
        }
        if cancelled { return CancellationError() }
        guard var failure = error as? APIError else { return APIError.unknown(request: summary, underlying: error) }
        failure.uploadResumeToken = kept
        return failure
    }

    /// `DELETE` on the upload resource, best effort (a failure to delete changes nothing for
    /// the caller: the server lets it expire).
    private func deleteResource() async {
        var deletion = resourceRequest(.delete)
        deletion.options.timeout = .seconds(10)
        _ = try? await client.data(for: deletion)
    }

    // MARK: Parts

    /// A request to the upload resource: the caller's fields (credentials, tracing) without
    /// those that describe the representation.
    private func resourceRequest(_ method: HTTPRequest.Method) -> ModifiedRequest<Base> {
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
    private static func ownExchange(_ options: inout RequestOptions) {
        options.acceptableStatusCodes = Set(200..<300)
        options.redirectPolicy = RedirectPolicy.none   // not `.none`: on an Optional that is nil, the default policy
        options.retry = .never
    }

    private static func removeRepresentationFields(from fields: inout HTTPFields) {
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
    private mutating func adopt(_ token: UploadResumeToken) throws {
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
    private func checkFileUnchanged() throws {
        let now = FileStatus.of(path: fileURL.resolvingSymlinksInPath().path)
        guard let before = fileStatus, let now, now.size == before.size, now.modified == before.modified else {
            throw APIError.encodingFailed(request: summary, underlying: UploadError(
                .fileChanged, detail: "'\(fileURL.path)' changed while it was uploaded (\(length) bytes at the start)"))
        }
    }

    private func checkLimits() throws {
        if let most = limits.maxSize, length > most {
            throw APIError.encodingFailed(request: summary, underlying: UploadError(.outsideLimits, detail: "the file has \(length) bytes; the server's max-size is \(most)"))
        }
        if let least = limits.minSize, length < least {
            throw APIError.encodingFailed(request: summary, underlying: UploadError(.outsideLimits, detail: "the file has \(length) bytes; the server's min-size is \(least)"))
        }
    }

    private func token() -> UploadResumeToken {
        UploadResumeToken(url: summary.url, uploadResource: resource?.absoluteString ?? "", totalBytes: length,
                          acknowledgedBytes: acknowledged, fileDigest: fileDigest, limits: limits)
    }

    private func remainingTime() throws -> Duration {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { throw APIError.timeout(request: summary, after: timeout) }
        return remaining
    }

    private func invalid(_ reason: UploadError.Reason, _ detail: String) -> APIError {
        APIError.invalidResponse(request: summary, response: lastHead, underlying: UploadError(reason, detail: detail))
    }

    private static func reason(of error: any Error) -> String {
        if let failure = TransferResumer.transportFailure(in: error) { return "\(failure.kind)" }
        if let api = error as? APIError, let status = api.statusCode { return "status \(status)" }
        return "\(type(of: error))"
    }

    private func metadata(_ extra: Logger.Metadata) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["courier.operation": "\(request.options.operationName ?? "upload")", "courier.url": "\(summary.url)"]
        metadata.merge(extra) { $1 }
        return metadata
    }
}
