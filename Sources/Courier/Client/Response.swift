import Foundation
import HTTPTypes

/// A decoded value with the HTTP response it came from and how long the exchange took.
public struct Response<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// The response head: status and header fields.
    public var response: HTTPResponse
    /// The raw body bytes.
    public var body: Data
    /// The request, as sent (secrets redacted).
    public var request: RequestSummary
    /// Timing of the exchange.
    public var metrics: ResponseMetrics

    /// Creates a response.
    public init(value: Value, response: HTTPResponse, body: Data, request: RequestSummary, metrics: ResponseMetrics) {
        self.value = value
        self.response = response
        self.body = body
        self.request = request
        self.metrics = metrics
    }

    /// The status code.
    public var statusCode: Int { response.status.code }

    /// The same response with its value transformed.
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> Response<T> {
        Response<T>(value: try transform(value), response: response, body: body, request: request, metrics: metrics)
    }
}

/// How long an exchange took.
public struct ResponseMetrics: Sendable, Hashable {
    /// When the client started the request.
    public var startDate: Date
    /// From the start until the response head arrived (middleware, redirects and retries included).
    public var timeToResponse: Duration
    /// From the start until the body was received and decoded.
    public var duration: Duration
    /// The body size in bytes.
    public var responseBytes: Int
    /// Where the response came from when a ``CachingMiddleware`` handled it (a hit, a stale
    /// response, a `304` revalidation, or the network); `nil` without one.
    public var cacheOutcome: CacheOutcome?

    /// Creates metrics.
    public init(startDate: Date, timeToResponse: Duration, duration: Duration, responseBytes: Int, cacheOutcome: CacheOutcome? = nil) {
        self.startDate = startDate
        self.timeToResponse = timeToResponse
        self.duration = duration
        self.responseBytes = responseBytes
        self.cacheOutcome = cacheOutcome
    }
}
