import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// One download to a file, from its first request to the file in place: every exchange is an
/// ordinary request through the client's middleware and transport — a resumed one carries
/// `Range: bytes=<on disk>-` and `If-Range: <validator>` — so resuming works the same over
/// every transport.
///
/// The loop, one exchange at a time:
/// - The answer is judged by ``RangeRequest/answer(to:accepted:)``: a `206` continuing the file
///   is appended (the sink places it, whoever writes it), a complete answer replaces the file,
///   an unusable one restarts from zero, a lying one fails with the partial file untouched.
/// - A failure the resumption policy retries (a lost connection, a timeout) starts the next
///   exchange from the bytes on disk — or from zero when they cannot be continued — after the
///   policy's backoff, with a token from its budget, before the download's deadline.
/// - The finished file is checked against the server's digest, then moved into place.
/// - A failure keeps the partial file and a token for it (when it can be resumed and the
///   options say so), or removes it.
struct ResumableDownload<Base: APIRequest> {
    private let client: APIClient
    let request: ModifiedRequest<Base>
    let destination: URL
    let options: DownloadOptions
    private let progress: TransferProgressHandler?
    /// The first request, for errors and the token's URL.
    let summary: RequestSummary
    /// The whole download's time limit, every exchange and wait included.
    let timeout: Duration
    private let deadline: ContinuousClock.Instant
    /// The request's own size limit, on the whole file.
    let limit: Int?
    private let acceptableStatusCodes: Set<Int>
    private let resumer: TransferResumer?
    /// Whether ranges may be asked for: a `GET` without a `Range` of the caller's own.
    let rangesAllowed: Bool
    private let logger: Logger

    var file: PartialFile?
    /// What is on disk, and what the next exchange asks for.
    var plan: RangeRequest
    /// Whether the bytes on disk can be continued (a strong validator and a known length).
    var resumable = false
    var lastHead: HTTPResponse?
    var lastSummary: RequestSummary
    var resumptions = 0
    var restarts = 0
    var received: Int64 = 0
    var digestVerified = false
    var lastCheckpoint: Int64 = 0
    /// Failures in a row without a byte received.
    private var failuresInARow = 0
    /// Exchanges so far (the current one's number).
    private var exchanges = 0
    /// The last placement adopted (its exchange and response), so one is counted once.
    private var adopted: (exchange: Int, response: Int)?
    /// Set for an error after which the partial file must go whatever the options say (the
    /// finished file did not match its digest).
    var discardsFile = false

    init(client: APIClient, request: Base, destination: URL, options: DownloadOptions, progress: TransferProgressHandler?) throws {
        let modified = ModifiedRequest(request)
        let (head, body) = try client.prepare(modified)
        self.client = client
        self.request = modified
        self.destination = destination
        self.options = options
        self.progress = progress
        self.summary = client.summary(of: head, operationName: modified.options.operationName)
        self.lastSummary = summary
        self.timeout = (modified.options.timeout ?? client.configuration.timeout).clampedToLongestWait
        self.deadline = ContinuousClock.now.advanced(by: timeout)
        self.limit = modified.options.maxResponseSize
        self.acceptableStatusCodes = modified.options.acceptableStatusCodes ?? client.configuration.acceptableStatusCodes
        self.logger = client.configuration.logger
        let callerRange = modified.headers[.range] != nil
        self.rangesAllowed = head.method == .get && !callerRange
        var plan = RangeRequest.whole
        plan.callerAskedForRange = callerRange
        self.plan = plan

        var resumer = options.resumption.resumer(on: client)
        // Sending the request again must be allowed at all (`.never`, a POST without an
        // idempotency key, a body that cannot be read twice).
        if let policy = resumer?.policy, !policy.isRetryable(head, body: body, options: modified.options) { resumer = nil }
        self.resumer = resumer
    }

    // MARK: The download

    mutating func run(from token: DownloadResumeToken?) async throws -> DownloadResult {
        try await openFile(resuming: token)
        do {
            try await transfer()
            return try await finish()
        } catch {
            throw await stop(after: error)
        }
    }

    /// Opens the partial file: the token's, checked against it, or a new one.
    private mutating func openFile(resuming token: DownloadResumeToken?) async throws {
        if let token {
            guard token.isWellFormed, token.url == summary.url else {
                throw APIError.encodingFailed(request: summary, underlying: DownloadError(
                    .tokenMismatch, detail: token.url == summary.url ? "malformed token (\(token.partialFileName))" : "the token is for \(token.url)"))
            }
            if let reopened = await PartialFile.reopen(named: token.partialFileName, beside: destination, minimumLength: token.bytesOnDisk) {
                file = reopened
                let tail = try? await reopened.tailDigest(endingAt: token.bytesOnDisk)
                if rangesAllowed, tail?.digest == token.tailDigest, tail?.length == token.tailLength {
                    // What was written after the token was taken is not vouched for: cut.
                    try await reopened.truncate(to: token.bytesOnDisk)
                    plan = RangeRequest(offset: token.bytesOnDisk, validator: token.validator, completeLength: token.totalBytes,
                                        representationDigest: token.representationDigest)
                    resumable = true
                    lastCheckpoint = token.bytesOnDisk
                    logger.debug("download resuming from a token", metadata: metadata(["courier.offset": "\(token.bytesOnDisk)"]))
                    return
                }
                try await restart(.partialFileChanged)
                return
            }
            restarts += 1
            logger.info("download starting from zero: \(RangeRequest.Restart.partialFileChanged)", metadata: metadata([:]))
        }
        switch await PartialFile.create(beside: destination) {
        case .success(let created): file = created
        case .failure(let error): throw APIError.unknown(request: summary, underlying: error)
        }
    }

    /// Exchanges until the file is whole, resuming after failures as the policy allows.
    private mutating func transfer() async throws {
        while true {
            let before = plan.offset
            let restartsBefore = restarts
            let sink = ResponseBodySink(handle: file!.handle, limit: limit.map(Int64.init), progress: progress, range: plan)
            exchanges += 1
            do {
                let done = try await exchange(through: sink)
                received += sink.bytesReceived
                sink.close()
                if done { return }
                // A `206` that ended before the representation did, or a restart: on to the
                // next exchange. One that brought nothing counts as a failure in a row.
                if plan.offset == before && restarts == restartsBefore {
                    failuresInARow += 1
                    guard failuresInARow < (resumer?.policy.maxAttempts ?? 3) else {
                        throw APIError.invalidResponse(request: lastSummary, response: lastHead, underlying: DownloadError(
                            .invalidContentRange, detail: "\(failuresInARow) answers in a row brought no byte past \(plan.offset)"))
                    }
                } else {
                    failuresInARow = 0
                }
            } catch {
                // Whatever the transport had placed when it failed is what is on disk.
                sink.close()
                received += sink.bytesReceived
                if let placement = sink.placement {
                    try adopt(placement)
                    plan.offset = sink.bytesWritten
                }
                try await resume(after: error, progressed: plan.offset > before || restarts > restartsBefore)
            }
        }
    }

    /// One exchange; `true` when the file is whole.
    private mutating func exchange(through sink: ResponseBodySink) async throws -> Bool {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { throw APIError.timeout(request: lastSummary, after: timeout) }
        var attempt = request
        attempt.options.timeout = remaining
        if plan.asksForRange, let validator = plan.validator {
            attempt.headers[.range] = "bytes=\(plan.offset)-"
            attempt.headers[.ifRange] = validator.headerValue
            // Ranges count bytes of the representation as sent: the bytes on disk are the
            // decoded ones, so the rest must come uncoded too.
            attempt.setDefaultHeader(.acceptEncoding, "identity")
            attempt.options.acceptableStatusCodes = acceptableStatusCodes.union([206])
        }
        let opened: APIClient.OpenedExchange
        do {
            opened = try await client.open(attempt, sink: sink)
        } catch let error as APIError where plan.asksForRange && error.kind == .httpError && error.statusCode == 416 {
            guard let head = error.response else { throw error }
            sink.close()
            lastHead = head
            switch plan.answer(to: head, accepted: false) {
            case .complete: return true
            case .restart(let reason):
                try await restart(reason)
                return false
            default: throw error
            }
        }
        let head = opened.response
        lastHead = head
        lastSummary = opened.summary
        switch plan.answer(to: head, accepted: true) {
        case .fail(let problem):
            throw APIError.invalidResponse(request: opened.summary, response: head, underlying: problem)
        case .restart(let reason):
            sink.close()   // before the file is cut: a transport still holding the sink writes nothing more
            try await restart(reason)
            return false
        case .complete:
            return true
        case .write, .notHandled:
            break
        }
        if sink.needsBegin(for: head) {
            try await file!.run { try sink.begin(response: head) }
        }
        guard let placement = sink.placement else {
            // The transport's sink judged another head (a middleware changed it since).
            throw APIError.invalidResponse(request: opened.summary, response: head, underlying: DownloadError(
                .invalidContentRange, detail: "the response could not be placed in the partial file"))
        }
        try adopt(placement)
        if plan.completeLength == nil, placement.offset == 0, let known = BodyReading.expectedLength(of: opened.body, head: head) {
            sink.setTotal(known)   // a body of known length without Content-Length (for progress)
        }
        if let limit, let length = plan.completeLength ?? BodyReading.expectedLength(of: opened.body, head: head), length > Int64(limit) {
            throw APIError.resourceTooLarge(request: opened.summary, limit: limit)
        }
        // Through the sink, which drops it when a transport writing there has already
        // reported bytes (its queue and this task report at the same time).
        sink.report(TransferProgress(completedBytes: placement.offset, totalBytes: plan.completeLength))
        if let body = opened.body {
            for try await chunk in body {
                if !chunk.isEmpty {
                    let data = Data(chunk)
                    if let written = try await file!.run({ try sink.write(data) }) { sink.report(written) }
                }
                // An empty chunk: a transport writing to the sink says it is moving.
                plan.offset = sink.bytesWritten
                await checkpointIfDue()
            }
        }
        try Task.checkCancellation()
        plan.offset = sink.bytesWritten
        if let length = plan.completeLength, plan.offset < length { return false }
        return true
    }

    /// Takes what the sink placed as what is on disk: a complete answer (from zero) is a new
    /// representation, with its own validator, length and digest.
    private mutating func adopt(_ placement: ResponseBodySink.Placement) throws {
        let identity = (exchanges, placement.response)
        if let adopted, adopted == identity { return }
        adopted = identity
        guard case .write(let offset, _, let length, let restart) = placement.answer else { return }
        let head = placement.head
        guard offset == 0 else {
            if plan.representationDigest == nil { plan.representationDigest = RepresentationDigest.sha256(announcedBy: head) }
            return
        }
        if let restart {
            restarts += 1
            logger.info("download starting again from zero: \(restart)", metadata: metadata(["courier.restarts": "\(restarts)"]))
            try checkRestarts(restart)
        }
        let coded = head.headerFields[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
        let refusesRanges = head.headerFields[.acceptRanges]?.lowercased() == "none"
        let validator = rangesAllowed && !coded && !refusesRanges && length != nil ? DownloadResumeToken.Validator(resuming: head) : nil
        var next = RangeRequest(offset: 0, validator: validator, completeLength: length,
                                representationDigest: RepresentationDigest.sha256(announcedBy: head))
        next.callerAskedForRange = plan.callerAskedForRange
        plan = next
        resumable = validator != nil
        lastCheckpoint = 0
    }

    /// Starts the file again from zero: the answer carried nothing usable, or what is on disk
    /// cannot be continued.
    private mutating func restart(_ reason: RangeRequest.Restart) async throws {
        restarts += 1
        logger.info("download starting again from zero: \(reason)", metadata: metadata(["courier.restarts": "\(restarts)"]))
        try checkRestarts(reason)
        try await file!.truncate(to: 0)
        var next = RangeRequest.whole
        next.callerAskedForRange = plan.callerAskedForRange
        plan = next
        resumable = false
        lastCheckpoint = 0
    }

    private func checkRestarts(_ reason: RangeRequest.Restart) throws {
        guard restarts > options.maxRestarts else { return }
        throw APIError.invalidResponse(request: lastSummary, response: lastHead, underlying: DownloadError(
            .tooManyRestarts, detail: "\(restarts) restarts from zero (at most \(options.maxRestarts)); the last: \(reason)"))
    }

    /// Resumes after `error` when the policy, the budget and the deadline allow (after its
    /// backoff); throws `error` otherwise.
    private mutating func resume(after error: any Error, progressed: Bool) async throws {
        if error is CancellationError || Task.isCancelled { throw error }
        guard let resumer, let failure = TransferResumer.transportFailure(in: error), resumer.policy.retryableErrors.contains(failure.kind) else { throw error }
        let inARow = progressed ? 0 : failuresInARow + 1
        guard inARow < resumer.policy.maxAttempts, resumptions < options.maxResumptions else { throw error }
        let wait = resumer.policy.backoff(beforeRetry: inARow + 1)
        guard wait < ContinuousClock.now.duration(to: deadline), resumer.budget?.tryWithdraw() ?? true else { throw error }
        failuresInARow = inARow
        resumptions += 1
        if !(resumable && rangesAllowed) && plan.offset > 0 { try await restart(.notResumable) }
        logger.info("download resuming after \(failure.kind)", metadata: metadata([
            "courier.resumption": "\(resumptions)", "courier.offset": "\(plan.offset)",
            "courier.total": "\(plan.completeLength.map { "\($0)" } ?? "unknown")",
            "courier.retry_delay_ms": "\(Int(wait.secondsValue * 1000))",
        ]))
        if wait > .zero { try await resumer.clock.sleep(for: wait) }
    }
}
