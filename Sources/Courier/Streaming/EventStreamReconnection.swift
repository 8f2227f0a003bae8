/// Whether and how ``APIClient/events(for:lastEventID:reconnection:)`` reconnects when an event
/// stream ends or its connection fails.
///
/// When it reconnects, it sends the request again with `Last-Event-ID` set to the last event
/// id received, after the delay the server asked for in its latest `retry:` field, kept between
/// ``minDelay`` and ``maxDelay`` (or ``defaultDelay`` until the server says). Like a browser's `EventSource`, it stops for good on
/// an HTTP error status, on `204 No Content`, and after ``maxAttempts`` reconnections in a row
/// that brought no event. A request that may not be sent twice is never reconnected, whatever
/// the policy: as for ``RetryMiddleware``, that takes an idempotent method (`GET`, `PUT`…), an
/// `Idempotency-Key` header, or ``RequestOptions/retry`` set to `.always`, and a body that can
/// be read again — a `POST` stream ends when its connection does. (`retry: .never` does not
/// stop a `GET` stream from reconnecting: it is about retrying failed requests.)
///
/// ```swift
/// for try await event in try await client.events(for: Request<Void>(path: "/feed"), reconnection: .automatic()) { ... }
/// ```
public struct EventStreamReconnection: Sendable, Hashable {
    /// Whether to reconnect at all.
    public var isEnabled: Bool
    /// The delay before reconnecting while the server has not sent a `retry:` field (at most
    /// ``maxDelay``).
    public var defaultDelay: Duration
    /// How many reconnections in a row may fail to deliver an event before the stream gives up
    /// (with the last error, or by ending when the server closed it cleanly). `nil`: no limit.
    public var maxAttempts: Int?
    /// The longest delay a server's `retry:` field can set (default 60 s). A server can ask for
    /// any number of milliseconds; without a cap a broken or hostile one parks the stream for a
    /// day, or for ever (`retry: 9223372036854775807`), where no request timeout applies.
    public var maxDelay: Duration
    /// The shortest delay a server's `retry:` field can set (default 100 ms). A server that
    /// sends `retry: 0` and closes each connection after an event would otherwise have the
    /// client reconnect as fast as the network allows, for as long as it likes: each event
    /// resets ``maxAttempts``'s count. ``defaultDelay`` is yours and is not raised to it; a
    /// ``maxDelay`` below it does not lower it.
    public var minDelay: Duration

    /// Never reconnect: the sequence ends when the server closes the stream.
    public static let never = EventStreamReconnection(isEnabled: false, defaultDelay: .zero, maxAttempts: 0)

    /// The default ``maxDelay``: 60 s.
    public static let defaultMaxDelay: Duration = .seconds(60)

    /// The default ``minDelay``: 100 ms.
    public static let defaultMinDelay: Duration = .milliseconds(100)

    /// Reconnect after the server's `retry` delay, at most `maxDelay` (or `defaultDelay`), at
    /// most `maxAttempts` times in a row without an event.
    public static func automatic(defaultDelay: Duration = .seconds(3), maxAttempts: Int? = 10,
                                 maxDelay: Duration = defaultMaxDelay, minDelay: Duration = defaultMinDelay) -> EventStreamReconnection {
        EventStreamReconnection(isEnabled: true, defaultDelay: defaultDelay, maxAttempts: maxAttempts, maxDelay: maxDelay, minDelay: minDelay)
    }

    /// Creates a policy.
    public init(isEnabled: Bool, defaultDelay: Duration, maxAttempts: Int?, maxDelay: Duration = defaultMaxDelay,
                minDelay: Duration = defaultMinDelay) {
        self.isEnabled = isEnabled
        self.defaultDelay = defaultDelay
        self.maxAttempts = maxAttempts
        self.maxDelay = maxDelay
        self.minDelay = minDelay
    }
}
