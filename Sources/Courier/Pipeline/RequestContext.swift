import Foundation
import Logging

/// What middleware and transports know about the request besides its bytes.
public struct RequestContext: Sendable {
    /// The operation's name: the request type's name, a macro method's name, or
    /// ``RequestOptions/operationName``. Used for logs, metrics and traces.
    public var operationName: String
    /// The client's base URL.
    public var baseURL: URL
    /// The request's options.
    public var options: RequestOptions
    /// The attempt number, from 1; retry middleware increments it.
    public var attempt: Int
    /// When the whole exchange (redirects, retries and body included) must be over.
    public var deadline: ContinuousClock.Instant
    /// The total time allowed, from which ``deadline`` was computed (for error messages).
    public var timeout: Duration
    /// The largest response body accepted, in bytes.
    public var maxResponseSize: Int
    /// The client's logger.
    public var logger: Logger
    /// Whether the client reads the whole response body before returning (`send`,
    /// `response(for:)`, `data(for:)`), rather than handing it to the caller unread
    /// (`stream(_:)`, downloads, events). A transport may then deliver a small body in one piece
    /// once it has arrived instead of streaming it; the default is `false`.
    public var collectsResponseBody: Bool = false

    /// Creates a context (transports and middleware get one from the client; tests build their own).
    public init(
        operationName: String,
        baseURL: URL,
        options: RequestOptions = RequestOptions(),
        attempt: Int = 1,
        timeout: Duration = .seconds(60),
        deadline: ContinuousClock.Instant? = nil,
        maxResponseSize: Int = APIConfiguration.defaultMaxResponseSize,
        logger: Logger = APIConfiguration.silentLogger
    ) {
        self.operationName = operationName
        self.baseURL = baseURL
        self.options = options
        self.attempt = attempt
        self.timeout = timeout
        self.deadline = deadline ?? .now.advanced(by: timeout)
        self.maxResponseSize = maxResponseSize
        self.logger = logger
    }

    /// Time left before the deadline (zero when it has passed).
    public var remainingTime: Duration {
        let left = ContinuousClock.now.duration(to: deadline)
        return left < .zero ? .zero : left
    }
}
