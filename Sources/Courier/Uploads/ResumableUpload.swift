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
    let client: APIClient
    let request: ModifiedRequest<Base>
    let fileURL: URL
    let contentType: String
    let options: ResumableUploadOptions
    let progress: TransferProgressHandler?
    let resumer: TransferResumer?
    let logger: Logger
    /// The creation request, for errors and the token.
    let summary: RequestSummary
    /// The creation request's URL, against which a relative `Location` resolves, and its
    /// origin: the upload resource must be on it.
    let target: URL
    let origin: CheckedURL
    let timeout: Duration
    let deadline: ContinuousClock.Instant

    var length: Int64 = 0
    var fileDigest = ""
    /// The file's size and modification time when the upload started: checked before each
    /// append, so a file changed in between fails instead of mixing two versions.
    var fileStatus: FileStatus?
    /// Whether every byte of an append with `Upload-Complete: ?1` went to the transport: after
    /// that, the server may have finished (and freed the upload resource), so a lost resource is
    /// a lost answer, never a reason to upload again. Before it, the server cannot have.
    var sentCompletion = false
    /// The bytes the transport has taken of the current append.
    let handedOver = Locked<Int64>(0)
    var limits = UploadLimits()
    /// The upload resource, once created.
    var resource: URL?
    /// Where the next append starts: the server's offset.
    var offset: Int64 = 0
    /// The highest offset the server acknowledged: a later one below it means lost data.
    var acknowledged: Int64 = 0
    /// Whether ``offset`` is the server's (false after a failure: ask with `HEAD` first).
    var knowsOffset = true
    /// Whether the server has the whole representation (its answer is the upload's).
    var completedOnServer = false
    var resumptions = 0
    var restarts = 0
    var failuresInARow = 0
    /// ``acknowledged`` at the last failure: a failure after progress starts the count again.
    var acknowledgedAtLastFailure: Int64 = -1
    var lastHead: HTTPResponse?
    /// The most bytes progress has reported.
    let reported = Locked<Int64>(-1)

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
    mutating func transfer() async throws -> Base.Response {
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
    mutating func discover() async throws -> Bool {
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
    mutating func create() async throws {
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
    mutating func retrieveOffset() async throws {
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
    mutating func append() async throws -> Base.Response? {
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
    mutating func accept(_ current: Int64, from source: String) throws {
        guard current <= length else {
            throw invalid(.invalidOffset, "\(source) says \(current) bytes, past the file's \(length)")
        }
        guard current >= acknowledged else {
            throw invalid(.invalidOffset, "\(source) says \(current) bytes, after \(acknowledged) were acknowledged")
        }
        offset = current
        acknowledged = current
    }
}
