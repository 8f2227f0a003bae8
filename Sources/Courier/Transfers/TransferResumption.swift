/// Whether and how a download (``DownloadOptions/resumption``) or a resumable upload
/// (``ResumableUploadOptions/resumption``) resumes by itself within one call after a failure.
public struct TransferResumption: Sendable {
    enum Rule: Sendable {
        case retryMiddleware
        case never
        case policy(RetryPolicy, budget: RetryBudget?, clock: any TimeSource)
    }
    let rule: Rule

    /// As the client's ``RetryMiddleware`` says (the default): a failure it retries
    /// (``RetryPolicy/retryableErrors``: a lost connection, a timeout — an idle timeout
    /// too) resumes the transfer after its backoff, each resumption taking a token from its
    /// ``RetryBudget``. A client without a `RetryMiddleware` does not resume by itself.
    public static let retryMiddleware = TransferResumption(rule: .retryMiddleware)
    /// Never by itself: a failure ends the call (with a resume token when it can be resumed).
    public static let never = TransferResumption(rule: .never)
    /// By `policy`, whatever the client's middleware: its retryable errors and backoff, and
    /// `budget` when given.
    public static func policy(_ policy: RetryPolicy, budget: RetryBudget? = nil, clock: any TimeSource = .system) -> TransferResumption {
        TransferResumption(rule: .policy(policy, budget: budget, clock: clock))
    }

    /// The policy this resumption follows on `client`, or `nil` when it never resumes.
    func resumer(on client: APIClient) -> TransferResumer? {
        switch rule {
        case .never:
            return nil
        case .retryMiddleware:
            return client.middleware.lazy.compactMap { $0 as? RetryMiddleware }.first
                .map { TransferResumer(policy: $0.policy, budget: $0.budget, clock: $0.clock) }
        case .policy(let policy, let budget, let clock):
            return TransferResumer(policy: policy, budget: budget, clock: clock)
        }
    }
}

/// How a transfer resumes by itself: a policy, an optional budget, where to sleep.
struct TransferResumer: Sendable {
    var policy: RetryPolicy
    var budget: RetryBudget?
    var clock: any TimeSource

    /// The transport failure behind `error`, whose kind the policy judges (a timeout of the
    /// client's own counts as the transport's).
    static func transportFailure(in error: any Error) -> TransportError? {
        var current: (any Error)? = error
        for _ in 0..<4 {
            switch current {
            case let failure as TransportError: return failure
            case let api as APIError:
                if api.kind == .timeout { return TransportError(.timeout, "timed out") }
                current = api.underlyingError
            default: return nil
            }
        }
        return nil
    }
}
