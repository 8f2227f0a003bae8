import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Retries failed attempts according to a ``RetryPolicy``, within the request's deadline and a
/// per-client ``RetryBudget``.
///
/// ```swift
/// let client = APIClient(configuration: configuration, transport: transport, middleware: [
///     LoggingMiddleware(),
///     RetryMiddleware(policy: .default),      // outside auth, so each retry is re-signed
///     AuthenticationMiddleware(.bearer(tokens)),
/// ])
/// ```
///
/// What it guarantees:
/// - Only requests that may be repeated are retried: idempotent methods, a request with an
///   `Idempotency-Key` header, or one whose options say ``RequestOptions/RetryBehavior/always``.
///   A transport failure that certainly did not send anything (`requestMayHaveBeenSent ==
///   false`) is retried for any method. ``RequestOptions/RetryBehavior/never`` is always obeyed.
/// - A body that can be iterated only once (`HTTPBody.iterationBehavior == .single`) is never
///   retried: its bytes are gone.
/// - `Retry-After` (seconds or HTTP date) is honoured and never shortened; if it is longer than
///   ``RetryPolicy/maxDelay`` or than the time left before the deadline, the response is
///   returned at once instead of waiting.
/// - The response being retried is drained (up to 64 KiB) so its connection is freed.
/// - A small response body (``RetryPolicy/maxBufferedResponseSize``, announced by its length)
///   is read here, so a connection lost in the middle of it is retried; longer bodies stream
///   to the caller untouched. A download's body is never read here: the download resumes it
///   itself by this middleware's policy and budget (see <doc:ResumableTransfers>).
/// - Each attempt runs with ``RequestContext/attempt`` set to its number.
/// - The wait is cancellable: cancelling the task ends it with `CancellationError`.
public struct RetryMiddleware: Middleware {
    /// What is retried and how long to wait.
    public let policy: RetryPolicy
    /// The budget shared by every request through this middleware.
    public let budget: RetryBudget
    /// Where it sleeps (a download resuming by this middleware's policy sleeps there too).
    let clock: any TimeSource

    /// Creates the middleware.
    /// - Parameters:
    ///   - policy: what to retry (default ``RetryPolicy/default``).
    ///   - budget: the retry budget, shared by all requests through this instance.
    ///   - clock: where to sleep (tests inject one that does not sleep).
    public init(policy: RetryPolicy = .default, budget: RetryBudget = RetryBudget(), clock: any TimeSource = .system) {
        self.policy = policy
        self.budget = budget
        self.clock = clock
    }

    /// Sends the request, retrying it as the policy, the deadline and the budget allow.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let retryable = policy.isRetryable(request, body: body, options: context.options)
        let replayable = BodyReading.isReplayable(body)
        budget.recordRequest()
        let firstAttempt = context.attempt
        var attempt = firstAttempt
        while true {
            let retryNumber = attempt - firstAttempt + 1
            let delay: Duration
            do {
                // The first attempt goes out with the caller's context; only a retry copies it
                // to carry its number (a copy retains each of the context's references).
                var (response, responseBody) = try await attempt == firstAttempt ? next(request, body, context)
                                                                                  : next(request, body, Self.context(context, attempt: attempt))
                let status = response.status.code
                let canRetry = retryable && retryNumber < policy.maxAttempts
                if canRetry, !policy.retryableStatuses.contains(status),
                   let length = bufferableLength(response, responseBody, context: context), let streamed = responseBody {
                    // Read a small body here, so a connection lost mid-body is retried like any other.
                    // Bounded: a body longer than announced (decompressed, say) streams on past the limit.
                    responseBody = try await BufferedBody.read(streamed, limit: length)
                }
                guard canRetry, policy.retryableStatuses.contains(status),
                      let wait = responseDelay(after: response, retry: retryNumber, context: context),
                      budget.tryWithdraw()
                else { return (response, responseBody) }
                delay = wait
                context.logger.debug("retrying after HTTP \(status)", metadata: [
                    "courier.operation": "\(context.operationName)", "courier.attempt": "\(attempt)",
                    "courier.retry_delay_ms": "\(Int(delay.secondsValue * 1000))",
                ])
                await BodyReading.drain(responseBody)
            } catch {
                guard let wait = retryDelay(after: error, retryable: retryable, replayable: replayable,
                                            retry: retryNumber, context: context),
                      budget.tryWithdraw()
                else { throw error }
                delay = wait
                context.logger.debug("retrying after \(error)", metadata: [
                    "courier.operation": "\(context.operationName)", "courier.attempt": "\(attempt)",
                    "courier.retry_delay_ms": "\(Int(delay.secondsValue * 1000))",
                ])
            }
            try Task.checkCancellation()
            if delay > .zero { try await clock.sleep(for: delay) }
            attempt += 1
        }
    }

    /// `context` for attempt number `attempt`.
    private static func context(_ context: RequestContext, attempt: Int) -> RequestContext {
        var context = context
        context.attempt = attempt
        return context
    }

    /// The announced length of a single-pass body small enough to read here, or `nil`. Never a
    /// download's (it offers a sink): the download resumes a body cut short itself, from the
    /// bytes it has, by this middleware's policy and budget.
    private func bufferableLength(_ response: HTTPResponse, _ body: HTTPBody?, context: RequestContext) -> Int? {
        guard let body, body.iterationBehavior == .single, policy.maxBufferedResponseSize > 0,
              context.bodyChannels.responseSink == nil else { return nil }
        let length: Int?
        if case .known(let known) = body.length { length = Int(exactly: known) } else {
            length = response.headerFields[.contentLength].flatMap { BodyReading.contentLength($0) }.flatMap { Int(exactly: $0) }
        }
        guard let length, length >= 0, length <= min(policy.maxBufferedResponseSize, context.maxResponseSize) else { return nil }
        return length
    }

    /// The wait before retrying a response, or `nil` when it must be returned instead.
    private func responseDelay(after response: HTTPResponse, retry: Int, context: RequestContext) -> Duration? {
        let remaining = context.remainingTime
        if let asked = RetryPolicy.retryAfter(response.headerFields[.retryAfter], now: clock.now()) {
            guard asked <= policy.maxDelay, asked < remaining else { return nil }
            return asked
        }
        let wait = policy.backoff(beforeRetry: retry)
        return wait < remaining ? wait : nil
    }

    /// The wait before retrying after an error, or `nil` when the error must be thrown.
    private func retryDelay(after error: any Error, retryable: Bool, replayable: Bool, retry: Int, context: RequestContext) -> Duration? {
        guard retry < policy.maxAttempts, !Task.isCancelled, let failure = error as? TransportError,
              policy.retryableErrors.contains(failure.kind) else { return nil }
        let safe = retryable || (replayable && context.options.retry != .never && !failure.requestMayHaveBeenSent)
        guard safe else { return nil }
        let wait = policy.backoff(beforeRetry: retry)
        return wait < context.remainingTime ? wait : nil
    }
}
