/// Whether and how ``APIClient/events(for:lastEventID:reconnection:)`` reconnects when an event
/// stream ends or its connection fails.
///
/// When it reconnects, it sends the request again with `Last-Event-ID` set to the last event
/// id received, after the delay the server asked for in its latest `retry:` field (or
/// ``defaultDelay`` until the server says). Like a browser's `EventSource`, it stops for good on
/// an HTTP error status, on `204 No Content`, and after ``maxAttempts`` reconnections in a row
/// that brought no event.
///
/// ```swift
/// for try await event in try await client.events(for: Request<Void>(path: "/feed"), reconnection: .automatic()) { ... }
/// ```
public struct EventStreamReconnection: Sendable, Hashable {
    /// Whether to reconnect at all.
    public var isEnabled: Bool
    /// The delay before reconnecting while the server has not sent a `retry:` field.
    public var defaultDelay: Duration
    /// How many reconnections in a row may fail to deliver an event before the stream gives up
    /// (with the last error, or by ending when the server closed it cleanly). `nil`: no limit.
    public var maxAttempts: Int?

    /// Never reconnect: the sequence ends when the server closes the stream.
    public static let never = EventStreamReconnection(isEnabled: false, defaultDelay: .zero, maxAttempts: 0)

    /// Reconnect after the server's `retry` delay (or `defaultDelay`), at most `maxAttempts`
    /// times in a row without an event.
    public static func automatic(defaultDelay: Duration = .seconds(3), maxAttempts: Int? = 10) -> EventStreamReconnection {
        EventStreamReconnection(isEnabled: true, defaultDelay: defaultDelay, maxAttempts: maxAttempts)
    }

    /// Creates a policy.
    public init(isEnabled: Bool, defaultDelay: Duration, maxAttempts: Int?) {
        self.isEnabled = isEnabled
        self.defaultDelay = defaultDelay
        self.maxAttempts = maxAttempts
    }
}
