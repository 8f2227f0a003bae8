import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Reading a response as it arrives: its unread body (``stream(for:)``), its chunks
/// (``bytes(for:)``) or its Server-Sent Events (``events(for:)``).
extension APIClient {
    /// Sends a request through the middleware and returns the response head and its *unread*
    /// body, with the status checked. The caller streams the body (downloads, events, bytes):
    ///
    /// ```swift
    /// let streamed = try await client.stream(for: Request<Data>(path: "/export"))
    /// if let body = streamed.body {
    ///     for try await chunk in body { try file.write(contentsOf: chunk) }
    /// }
    /// ```
    public func stream<R: APIRequest>(for request: R) async throws -> StreamedResponse {
        let (response, body, summary) = try await openStream(request)
        return StreamedResponse(response: response, body: body, request: summary)
    }

    /// ``open(_:sink:limitsWholeBody:)`` as a tuple; inlined, so that `stream(for:)` takes as
    /// many async frames as `data(for:)` (one each, before the transport's).
    @inline(__always)
    func openStream<R: APIRequest>(_ request: R) async throws -> (HTTPResponse, HTTPBody?, RequestSummary) {
        let opened = try await open(request)
        return (opened.response, opened.body, opened.summary)
    }

    /// A response whose body is still unread, with the request's options as merged once with
    /// the configuration (downloads, byte streams and event streams read their limits here).
    struct OpenedExchange {
        var response: HTTPResponse
        var body: HTTPBody?
        var summary: RequestSummary
        /// The request's own options (a streamed body is capped only by its own
        /// `maxResponseSize`, not by the configuration's).
        var options: RequestOptions
        /// The timeout in force: the request's, else the configuration's.
        var timeout: Duration
        /// The size limit in force: the request's, else the configuration's.
        var maxResponseSize: Int
    }

    /// `limitsWholeBody`: the request's own size limit applies to its body as a whole (byte
    /// streams), not per part of it (event streams) or not at all (`stream(for:)`).
    @inline(__always)
    func open<R: APIRequest>(_ request: R, sink: ResponseBodySink? = nil, limitsWholeBody: Bool = false) async throws -> OpenedExchange {
        let (prepared, context) = try makeExchange(request, sink: sink, limitsWholeBody: limitsWholeBody)
        do {
            let (head, body, code) = try await exchange(prepared, context: context)
            if !context.accepts(statusCode: code) {
                let data = await BodyReading.consumingPrefix(of: body, limit: BodyReading.errorPrefixLimit)
                throw Self.httpError(head, body: data, summary: prepared.summary)
            }
            return OpenedExchange(response: head, body: body, summary: prepared.summary, options: context.options,
                                  timeout: context.timeout, maxResponseSize: context.maxResponseSize)
        } catch {
            throw Self.map(error, summary: prepared.summary, timeout: context.timeout)
        }
    }

    /// Sends a request and returns its body as an async sequence of chunks, as they arrive.
    ///
    /// For large or endless responses: nothing is held in memory but the chunk in hand. The
    /// status is checked before this returns (an unacceptable one throws
    /// ``APIError/Kind/httpError``).
    ///
    /// ```swift
    /// let stream = try await client.bytes(for: Request<Data>(path: "/logs/tail"))
    /// for try await chunk in stream {
    ///     handle(chunk)
    /// }
    /// ```
    ///
    /// As with downloads, the client-wide ``APIConfiguration/maxResponseSize`` does not apply,
    /// the request's own ``RequestOptions/maxResponseSize`` does. The request's timeout covers
    /// the whole stream: give endless streams a long one.
    public func bytes<R: APIRequest>(for request: R) async throws -> ByteStream {
        let opened = try await open(request, limitsWholeBody: true)
        let (head, body, summary) = (opened.response, opened.body, opened.summary)
        let limit = opened.options.maxResponseSize
        let expected = BodyReading.expectedLength(of: body, head: head)
        if let limit, let expected, expected > Int64(limit) {
            throw APIError.resourceTooLarge(request: summary, limit: limit)
        }
        return ByteStream(response: head, request: summary, expectedLength: expected, body: body, limit: limit,
                          timeout: opened.timeout)
    }

    /// Sends a request and returns the Server-Sent Events of its `text/event-stream` response.
    ///
    /// The first connection is made before this returns, so an HTTP error or a refused
    /// connection throws here. `Accept: text/event-stream` and `Cache-Control: no-cache` are
    /// added unless the request sets them.
    ///
    /// ```swift
    /// let events = try await client.events(for: Request<Void>(path: "/notifications"),
    ///                                      reconnection: .automatic())
    /// for try await event in events {
    ///     print(event.id ?? "-", event.event ?? "message", event.data ?? "")
    /// }
    /// ```
    ///
    /// With reconnection, each connection is a new exchange with the request's timeout (which
    /// covers the body): a stream that outlives it reconnects rather than failing. Without it, give
    /// long-lived streams a long timeout.
    ///
    /// - Parameters:
    ///   - request: The request; its response type is not used.
    ///   - lastEventID: Resume after this event id (sent as `Last-Event-ID`).
    ///   - reconnection: Whether to reconnect when the stream ends or fails. Default: never.
    public func events<R: APIRequest>(
        for request: R,
        lastEventID: String? = nil,
        reconnection: EventStreamReconnection = .never
    ) async throws -> ServerSentEventStream {
        var modified = ModifiedRequest(request)
        modified.setDefaultHeader(.accept, "text/event-stream")
        modified.setDefaultHeader(.cacheControl, "no-cache")
        let lastEventIDName = HTTPField.Name("Last-Event-ID")!
        if let lastEventID { modified.headers[lastEventIDName] = lastEventID }
        let opened = try await open(modified)
        let (head, body, summary) = (opened.response, opened.body, opened.summary)
        let template = modified
        let reconnect: @Sendable (String?) async throws -> (HTTPResponse, HTTPBody?) = { [self] id in
            var again = template
            if let id { again.headers[lastEventIDName] = id }
            let (head, body, _) = try await self.openStream(again)
            return (head, body)
        }
        // Reconnecting sends the request again: only one that may be sent twice. Unlike a
        // retry, `retry: .never` does not forbid it (it is about failures, not streams).
        let mayResend = RetryPolicy.default.maySendAgain(
            modified.method, hasIdempotencyKey: modified.headers[RetryPolicy.idempotencyKey] != nil,
            body: Self.streamedBody(of: modified.body), retry: modified.options.retry)
        return ServerSentEventStream(
            response: head, request: summary, firstBody: head.status.code == 204 ? nil : (body ?? HTTPBody()),
            reconnect: head.status.code == 204 || !mayResend ? nil : reconnect, policy: reconnection, lastEventID: lastEventID,
            timeout: opened.timeout,
            maxEventSize: opened.maxResponseSize)
    }

    /// The caller's own stream, when the body is one: only it may be unable to be sent twice
    /// (every other ``RequestBody`` is encoded afresh for each send).
    private static func streamedBody(of body: RequestBody?) -> HTTPBody? {
        if case .stream(let stream, _)? = body { return stream }
        return nil
    }
}
