import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// How a resumable download ends: the finished file moved into place and checked against the
/// announced digest, or the error — with the token to resume from when the partial file is
/// kept — and the checkpoints handed to the caller on the way.
extension ResumableDownload {
    // MARK: Ends

    /// Checks the digest and moves the file into place.
    mutating func finish() async throws -> DownloadResult {
        if options.verifiesDigest, let expected = plan.representationDigest {
            let actual = try await file!.sha256(length: plan.offset)
            guard actual == expected else {
                discardsFile = true
                throw APIError.invalidResponse(request: lastSummary, response: lastHead, underlying: DownloadError(
                    .digestMismatch, detail: "the SHA-256 of the \(plan.offset) bytes received is \(actual); the server announced \(expected)"))
            }
            digestVerified = true
        }
        try await file!.close(movingTo: destination)
        file = nil
        return DownloadResult(fileURL: destination, response: lastHead ?? HTTPResponse(status: .ok), byteCount: plan.offset, request: lastSummary,
                              resumptions: resumptions, restarts: restarts, bytesReceived: received, digestVerified: digestVerified)
    }

    /// Keeps the partial file with a token, or removes it, and returns the error to throw.
    mutating func stop(after error: any Error) async -> any Error {
        let cancelled = error is CancellationError || Task.isCancelled
        var token: DownloadResumeToken?
        if let file {
            if options.keepsPartialFile, !discardsFile { token = try? await makeToken() }
            if let token {
                await file.close()
                options.onCheckpoint?(token)
            } else {
                await file.remove()
            }
            self.file = nil
        }
        if cancelled { return CancellationError() }
        var mapped = map(error)
        if let token, var failure = mapped as? APIError {
            failure.resumeToken = token
            mapped = failure
        }
        return mapped
    }

    /// Any failure as the caller sees it: an ``APIError`` (or `CancellationError`).
    func map(_ error: any Error) -> any Error {
        // What a sink threw, inside the transport's error: the size limit, a range overrun.
        var current: (any Error)? = error
        for _ in 0..<4 {
            switch current {
            case let exceeded as BodyLimitExceeded: return APIError.resourceTooLarge(request: lastSummary, limit: exceeded.limit)
            case let problem as DownloadError: return APIError.invalidResponse(request: lastSummary, response: lastHead, underlying: problem)
            case let transport as TransportError: current = transport.underlying
            default: current = nil
            }
        }
        switch error {
        case is APIError, is CancellationError: return error
        case is CocoaError, is POSIXError: return APIError.unknown(request: lastSummary, underlying: error)
        default: return APIClient.map(error, summary: lastSummary, timeout: timeout)
        }
    }

    /// A token for what is on disk now; `nil` when it cannot be resumed.
    private func makeToken() async throws -> DownloadResumeToken? {
        guard let file, resumable, rangesAllowed, plan.offset > 0, let validator = plan.validator, let total = plan.completeLength else { return nil }
        let tail = try await file.tailDigest(endingAt: plan.offset)
        return DownloadResumeToken(url: summary.url, validator: validator, totalBytes: total, bytesOnDisk: plan.offset,
                                   partialFileName: file.name, tailDigest: tail.digest, tailLength: tail.length,
                                   representationDigest: plan.representationDigest)
    }

    /// Hands the caller a token each ``DownloadOptions/checkpointInterval`` bytes.
    mutating func checkpointIfDue() async {
        guard let onCheckpoint = options.onCheckpoint, resumable, plan.offset - lastCheckpoint >= options.checkpointInterval else { return }
        lastCheckpoint = plan.offset
        if let token = try? await makeToken() { onCheckpoint(token) }
    }

    func metadata(_ extra: Logger.Metadata) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["courier.operation": "\(request.options.operationName ?? "download")", "courier.url": "\(summary.url)"]
        metadata.merge(extra) { $1 }
        return metadata
    }
}
