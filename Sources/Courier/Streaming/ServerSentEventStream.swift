import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The events of a `text/event-stream` response, as an async sequence of `ServerSentEvent`s
/// (`id`, `event`, `data`, `retry`, from swift-openapi-runtime).
///
/// Returned by ``APIClient/events(for:lastEventID:reconnection:)``. Parsing follows the HTML
/// standard: LF, CR and CRLF line ends, `data:` lines joined with `\n`, comment lines
/// (`: keep-alive`) ignored, and an event dispatched only when it has data (an event with only
/// `id:` or `retry:` updates the stream's state silently). Iterate it once; leaving the loop or
/// cancelling the task closes the connection.
///
/// Each line and each event is bounded by the request's maximum response size
/// (``RequestOptions/maxResponseSize``, else ``APIConfiguration/maxResponseSize``): a server that
/// sends a longer one ends the stream with ``APIError/Kind/resourceTooLarge``, never
/// with unbounded memory. The stream as a whole is not bounded — it may run for hours. Parsing
/// is linear in the bytes received. An `id:` longer than 1,024 bytes is ignored, as one holding
/// NUL is: it would be sent back as `Last-Event-ID` on every reconnection.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent

    /// The head of the first response.
    public let response: HTTPResponse
    /// The request, for logs.
    public let request: RequestSummary

    let firstBody: HTTPBody?
    let reconnect: (@Sendable (_ lastEventID: String?) async throws -> (HTTPResponse, HTTPBody?))?
    let policy: EventStreamReconnection
    let lastEventID: String?
    let timeout: Duration
    /// The most bytes a line or an event may have.
    let maxEventSize: Int
    /// The longest event id kept, in bytes: a longer one is ignored (as one holding NUL is), so
    /// a server cannot make every reconnection send a `Last-Event-ID` of megabytes.
    static let maxEventIDLength = 1_024

    /// Reads events, reconnecting as the policy allows.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var current: ServerSentEventSequence.AsyncIterator?
        var pendingBody: HTTPBody?
        var finished = false
        /// The last event id seen (the spec's "last event ID buffer").
        public private(set) var lastEventID: String?
        /// The reconnection delay: the server's latest `retry:` or the policy's default.
        public private(set) var reconnectionDelay: Duration
        var failuresInARow = 0
        let stream: ServerSentEventStream

        init(stream: ServerSentEventStream) {
            self.stream = stream
            self.pendingBody = stream.firstBody
            self.lastEventID = stream.lastEventID
            self.reconnectionDelay = Swift.min(stream.policy.defaultDelay, stream.policy.maxDelay)
            if stream.firstBody == nil { current = nil }
        }

        /// The next event with data, or `nil` when the stream is over.
        public mutating func next() async throws -> ServerSentEvent? {
            while !finished {
                try Task.checkCancellation()
                if current == nil {
                    if let body = pendingBody {
                        pendingBody = nil
                        current = ServerSentEventSequence(body: body, limit: stream.maxEventSize).makeAsyncIterator()
                    } else {
                        try await reconnect()
                        continue
                    }
                }
                do {
                    guard let event = try await current!.next() else {
                        current = nil
                        if !canReconnect { finished = true }
                        continue
                    }
                    if let id = event.id, !id.contains("\0"), id.utf8.count <= ServerSentEventStream.maxEventIDLength { lastEventID = id }
                    if let retry = event.retry, retry >= 0 {
                        // Kept between the policy's bounds, the floor last: `retry: 0` must not make
                        // a reconnect loop, even under a `maxDelay` below `minDelay`.
                        reconnectionDelay = Swift.max(Swift.min(.milliseconds(retry), stream.policy.maxDelay), stream.policy.minDelay)
                    }
                    guard event.data != nil else { continue }
                    failuresInARow = 0
                    return event
                } catch {
                    current = nil
                    if Task.isCancelled || error is CancellationError { throw CancellationError() }
                    if error is BodyLimitExceeded {
                        finished = true
                        throw APIError.resourceTooLarge(request: stream.request, limit: stream.maxEventSize)
                    }
                    let mapped = APIClient.map(error, summary: stream.request, timeout: stream.timeout)
                    guard canReconnect, Self.isRecoverable(mapped) else {
                        finished = true
                        throw mapped
                    }
                }
            }
            return nil
        }

        private var canReconnect: Bool {
            guard stream.policy.isEnabled, stream.reconnect != nil else { return false }
            if let max = stream.policy.maxAttempts { return failuresInARow < max }
            return true
        }

        private mutating func reconnect() async throws {
            guard canReconnect, let reconnect = stream.reconnect else {
                finished = true
                return
            }
            failuresInARow += 1
            // Clamped: a policy without a cap (`maxDelay` of `Int64.max` seconds) lets a server's
            // `retry:` ask for more than the clock can count.
            try await SystemTimeSource().sleep(for: reconnectionDelay.clampedToLongestWait)
            do {
                let (head, body) = try await reconnect(lastEventID)
                if head.status.code == 204 {
                    finished = true
                    return
                }
                pendingBody = body ?? HTTPBody()
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                guard Self.isRecoverable(error), canReconnect else {
                    finished = true
                    throw error
                }
            }
        }

        /// Network failures and timeouts are worth another connection; HTTP errors are not.
        static func isRecoverable(_ error: any Error) -> Bool {
            switch (error as? APIError)?.kind {
            case .network?, .timeout?: return true
            default: return false
            }
        }
    }

    /// Starts reading events (once: the first response's body can be read only once).
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}
