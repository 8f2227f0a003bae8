/// A response body, or a piece of one, passed the size limit it was read under.
///
/// The one error every reader of a response body throws at its limit — the collector of a whole
/// body, a download's file sink, a transport's spill buffer, the event-stream parser — so that
/// the client maps all of them the same way: to ``APIError/Kind/resourceTooLarge`` for the
/// request being read (`APIClient.map(_:summary:timeout:)`). A middleware that collects a body
/// without knowing the request throws it too.
package struct BodyLimitExceeded: Error, Sendable, CustomStringConvertible {
    /// What passed the limit.
    package enum Part: Sendable {
        /// The body as a whole.
        case body
        /// One line or one event of an event stream.
        case event
    }

    /// The limit, in bytes.
    package let limit: Int
    /// What passed it.
    package let part: Part

    /// The error of a body (or, with `part`, a piece of one) longer than `limit` bytes.
    package init(limit: Int, part: Part = .body) {
        self.limit = limit
        self.part = part
    }

    package var description: String {
        switch part {
        case .body: return "the response body is larger than the limit of \(limit) bytes"
        case .event: return "an event-stream line or event is larger than the limit of \(limit) bytes"
        }
    }
}
