import Foundation

/// A failure below HTTP, reported by a ``Transport`` in terms every transport shares, so that
/// the client, the retry policy and your code can tell a timeout from a refused connection
/// without knowing which transport is in use.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure happened.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The deadline or a timeout passed before the exchange completed.
        public static let timeout = Kind("timeout")
        /// No connection could be made (refused, unreachable, DNS failure).
        public static let connectionFailed = Kind("connection failed")
        /// The connection closed or reset before the response was complete.
        public static let connectionLost = Kind("connection lost")
        /// TLS failed: handshake, certificate validation or pinning.
        public static let tls = Kind("TLS failure")
        /// The exchange was cancelled.
        public static let cancelled = Kind("cancelled")
        /// The transport refused its configuration or the request (e.g. an unsupported option).
        public static let invalidRequest = Kind("invalid request")
        /// A file on this machine could not be written or read: a temporary file the transport
        /// keeps a body in, the destination of a download, a file a multipart upload reads (a
        /// full disk, a missing or read-only directory). Not a network failure:
        /// the client reports it as ``APIError/Kind/unknown`` with this error underneath, and
        /// ``RetryPolicy`` does not retry it by default.
        public static let localFile = Kind("local file failure")
        /// Anything else.
        public static let other = Kind("transport failure")

        public var description: String { name }
    }

    /// What kind of failure happened.
    public var kind: Kind
    /// A short human-readable explanation.
    public var message: String
    /// The transport's own error, when there is one.
    public var underlying: (any Error)?
    /// Whether the request's bytes may have reached the server. `false` means it is certainly
    /// safe to retry any method (the connection was refused, for example).
    public var requestMayHaveBeenSent: Bool
    /// For a ``Kind/timeout`` that a limit of the transport's own ended (its client's connect or
    /// read timeout), that limit; `nil` when the request's deadline ran out. ``APIClient``
    /// reports the limit and the ``message`` in its ``APIError``, so that a 30 s read timeout is
    /// not shown as the request's 120 s deadline.
    public var timeLimit: Duration?
    /// The network condition a transport found (a refused connection, a DNS failure), when its
    /// own error says more than the kind; read through ``networkFailure``.
    package var cause: NetworkFailure?

    /// Creates a transport error.
    public init(_ kind: Kind, _ message: String, underlying: (any Error)? = nil, requestMayHaveBeenSent: Bool = true,
                timeLimit: Duration? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
        self.requestMayHaveBeenSent = requestMayHaveBeenSent
        self.timeLimit = timeLimit
    }

    /// The kind, the message and the underlying error. A `URLError` is shown by its code and
    /// message only: its own description prints its `userInfo`, whose failing URL holds the
    /// request's query — secret values included — and this text reaches logs and traces.
    public var description: String {
        guard let underlying else { return "\(kind): \(message)" }
        return "\(kind): \(message) (\(UnderlyingErrorText.describe(underlying)))"
    }
}
