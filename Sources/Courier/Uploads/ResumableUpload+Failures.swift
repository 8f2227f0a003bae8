import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// How a resumable upload goes on after a failure — the offset from a `409`, a restart when the
/// server lost the upload, a resumption by the policy after its backoff — or ends: the upload
/// resource deleted, or kept with a token.
extension ResumableUpload {
    /// Goes on after `error` when the protocol and the policy allow; throws otherwise.
    mutating func recover(from error: any Error) async throws {
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
    mutating func countFailure(_ error: any Error) throws {
        failuresInARow = acknowledged > acknowledgedAtLastFailure ? 1 : failuresInARow + 1
        acknowledgedAtLastFailure = acknowledged
        guard failuresInARow < (resumer?.policy.maxAttempts ?? 3) else { throw error }
    }

    /// Waits the policy's backoff, then asks for the offset before the next append.
    mutating func resume(after error: any Error) async throws {
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
    mutating func restart(after error: any Error) throws {
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
    mutating func stop(after error: any Error) async -> any Error {
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
    func deleteResource() async {
        var deletion = resourceRequest(.delete)
        deletion.options.timeout = .seconds(10)
        _ = try? await client.data(for: deletion)
    }
}
