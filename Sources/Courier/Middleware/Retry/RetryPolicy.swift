import Foundation
import HTTPTypes
import OpenAPIRuntime

/// What ``RetryMiddleware`` retries, how often, and how long it waits.
///
/// The defaults follow what trusted clients do (Alamofire's `RetryPolicy`, gRPC, OkHttp):
/// up to 3 attempts; statuses 408, 500, 502, 503 and 504 (429 only when you add it, since many
/// APIs mean "slow down for a long while"); refused, lost or timed-out connections; exponential
/// backoff from 0.5 s doubling to at most 30 s, with full jitter; idempotent methods only.
///
/// ```swift
/// var policy = RetryPolicy.default
/// policy.maxAttempts = 5
/// policy.retryableStatuses.insert(429)          // opt in to "Too Many Requests"
/// policy.maxDelay = .seconds(10)                // never wait longer than this
/// let retry = RetryMiddleware(policy: policy)
/// ```
public struct RetryPolicy: Sendable {
    /// How the exponential delay is randomised.
    public struct Jitter: Sendable, Hashable {
        private enum Kind: Hashable { case none, full, equal }
        private let kind: Kind

        /// The exact exponential delay (predictable; for tests).
        public static let none = Jitter(kind: .none)
        /// A random delay between 0 and the exponential delay (AWS "full jitter"; the default).
        public static let full = Jitter(kind: .full)
        /// Half the exponential delay plus a random half.
        public static let equal = Jitter(kind: .equal)

        func apply(_ seconds: Double) -> Double {
            switch kind {
            case .none: return seconds
            case .full: return Double.random(in: 0...seconds)
            case .equal: return seconds / 2 + Double.random(in: 0...(seconds / 2))
            }
        }
    }

    /// The most attempts, the first included (1 disables retries).
    public var maxAttempts: Int
    /// The delay before the first retry, before jitter.
    public var initialDelay: Duration
    /// The factor applied to the delay after each retry.
    public var multiplier: Double
    /// The longest wait. A `Retry-After` longer than this is not waited for: the response is
    /// returned instead.
    public var maxDelay: Duration
    /// How the delay is randomised.
    public var jitter: Jitter
    /// The response statuses that are retried.
    public var retryableStatuses: Set<Int>
    /// The transport failures that are retried (the request must also be retryable; a failure
    /// with `requestMayHaveBeenSent == false` is retried for any method).
    public var retryableErrors: Set<TransportError.Kind>
    /// The methods retried without the request opting in.
    public var idempotentMethods: Set<HTTPRequest.Method>
    /// Responses of a retryable request whose announced length is at most this many bytes are
    /// read inside the middleware, so a connection lost in the middle of the body is retried
    /// too (default 256 KiB; 0 turns it off). Longer or unsized bodies (downloads, event
    /// streams) are passed on as they stream, and a failure while reading them reaches the caller.
    public var maxBufferedResponseSize: Int

    /// Creates a policy; every argument has the default described on the type.
    public init(
        maxAttempts: Int = 3,
        initialDelay: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maxDelay: Duration = .seconds(30),
        jitter: Jitter = .full,
        retryableStatuses: Set<Int> = [408, 500, 502, 503, 504],
        retryableErrors: Set<TransportError.Kind> = [.connectionFailed, .connectionLost, .timeout],
        idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .put, .delete, .trace],
        maxBufferedResponseSize: Int = 256 * 1024
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.multiplier = max(1, multiplier)
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.retryableStatuses = retryableStatuses
        self.retryableErrors = retryableErrors
        self.idempotentMethods = idempotentMethods
        self.maxBufferedResponseSize = max(0, maxBufferedResponseSize)
    }

    /// The defaults described on the type.
    public static let `default` = RetryPolicy()
    /// No retries at all.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// The backoff before retry number `retry` (1 for the first retry), jittered and capped.
    public func backoff(beforeRetry retry: Int) -> Duration {
        let base = initialDelay.secondsValue * pow(multiplier, Double(max(0, retry - 1)))
        let capped = min(base, maxDelay.secondsValue)
        return .seconds(jitter.apply(max(0, capped)))
    }

    /// Whether a request may be retried at all: not opted out, an idempotent method (or
    /// `Idempotency-Key`, or opted in), and a body that can be sent again.
    public func isRetryable(_ request: HTTPRequest, body: HTTPBody?, options: RequestOptions) -> Bool {
        options.retry != .never
            && maySendAgain(request.method, hasIdempotencyKey: request.headerFields[Self.idempotencyKey] != nil, body: body, retry: options.retry)
    }

    /// Whether a request may be sent a second time at all: a body that can be read again, and
    /// an idempotent method, an `Idempotency-Key` or ``RequestOptions/RetryBehavior/always``.
    /// ``isRetryable(_:body:options:)`` adds that `.never` forbids retrying a failure; an event
    /// stream's reconnection applies this rule alone (`.never` is about failures, not streams).
    package func maySendAgain(_ method: HTTPRequest.Method, hasIdempotencyKey: @autoclosure () -> Bool,
                              body: HTTPBody?, retry: RequestOptions.RetryBehavior) -> Bool {
        guard BodyReading.isReplayable(body) else { return false }
        return retry == .always || idempotentMethods.contains(method) || hasIdempotencyKey()
    }

    package static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    /// The delay a `Retry-After` value asks for: seconds (`120`) or an HTTP date, relative to `now`.
    /// `nil` when the value is missing or malformed.
    public static func retryAfter(_ value: String?, now: Date) -> Duration? {
        guard let value = value.map({ String($0.trimmingSpacesAndTabs()) }), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? .seconds(seconds) : nil }
        // The package's one HTTP-date reader (all three shapes of RFC 9110 §5.6.7), not a
        // `DateFormatter` per shape: making one costs more than the whole retry decision.
        guard let date = CacheFreshness.httpDate(value) else { return nil }
        let interval = date.timeIntervalSince(now)
        return .seconds(max(0, interval.rounded(.up)))
    }
}
