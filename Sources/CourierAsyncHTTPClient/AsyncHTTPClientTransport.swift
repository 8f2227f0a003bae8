public import AsyncHTTPClient
public import Courier
import Foundation
public import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
public import OpenAPIRuntime

/// A `Transport` over AsyncHTTPClient: the fast path on Linux, with connection
/// pooling, HTTP/2, streaming request and response bodies, and per-request deadlines.
///
/// ```swift
/// let client = APIClient(
///     configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
///     transport: AsyncHTTPClientTransport()
/// )
/// ```
///
/// By default the transport uses one process-wide `HTTPClient` configured for Courier
/// (redirects disabled — Courier follows them itself —; gzip and deflate bodies are inflated by
/// the transport, only as fast as they are read). Pass your
/// own `HTTPClient` to control pools, TLS or proxies; configure it with
/// ``AsyncHTTPClientTransport/recommendedConfiguration()`` so redirects stay with Courier. A
/// client that follows redirects by itself (AsyncHTTPClient's default configuration) is refused:
/// every request fails with a `TransportError` of kind `invalidRequest` before anything
/// is sent. (The redirect mode is read by reflection; should a later AsyncHTTPClient hide it, a
/// response reached through a redirect is refused instead, after the fact.) You own a client you pass in: shut it down when you are done with it.
public struct AsyncHTTPClientTransport: Transport {
    /// The client requests go through.
    public let client: HTTPClient
    /// Whether the transport asks for compressed responses (`Accept-Encoding: gzip, deflate`)
    /// when the request does not say otherwise. A gzip or deflate body is decoded by the client
    /// when its decompression is on, else by the transport. Defaults to `true`, unless the
    /// configuration of a client you pass in cannot be read: such bodies are then refused, so
    /// asking for them would only turn compressed answers into errors.
    public var requestsCompression: Bool

    /// The idle read timeout of ``client``, if known: a body whose deadline is further away than
    /// this needs no timer of its own (see ``init(client:requestsCompression:clientReadTimeout:)``).
    public let clientReadTimeout: Duration?

    /// The limits of ``client``'s configuration, for errors that name the one that ran out.
    private let timeouts: AsyncHTTPClientErrors.ClientTimeouts

    /// Whether ``client`` follows redirects itself (`nil`: unknown; each response is checked).
    private let clientFollowsRedirects: Bool?
    /// Whether ``client`` inflates gzip and deflate bodies (`false`: the transport does; `nil`:
    /// unknown, so such bodies are refused: inflating twice, or not at all, would hand on other
    /// bytes). A body in any other coding is refused rather than passed on still encoded.
    private let clientDecompresses: Bool?

    /// Creates a transport over the shared Courier-configured client, or over `client`.
    ///
    /// AsyncHTTPClient's deadline ends at the response head; the transport enforces the request's
    /// deadline while the body streams. A server that falls silent mid-body is cut off by the
    /// client's idle read timeout when that comes first, and otherwise by a timer the transport
    /// races against each wait for a chunk. Pass the read timeout your `client` was configured
    /// with (`HTTPClient.Configuration.timeout.read`; 30 s for
    /// ``recommendedConfiguration()``) as `clientReadTimeout` to spare that timer for requests
    /// whose deadline lies further away; leave it `nil` when the client has none or you do not know.
    public init(client: HTTPClient? = nil, requestsCompression: Bool? = nil, clientReadTimeout: Duration? = nil) {
        self.client = client ?? SharedHTTPClient.client
        self.clientReadTimeout = client == nil ? Self.recommendedReadTimeout : clientReadTimeout
        self.clientFollowsRedirects = client.map(ClientRedirectMode.follows) ?? false
        let configuration = if let client { ClientRedirectMode.configuration(of: client) } else { Self.recommendedConfiguration() }
        self.timeouts = AsyncHTTPClientErrors.ClientTimeouts(configuration, read: self.clientReadTimeout)
        let clientDecompresses: Bool? = if client != nil { configuration.map(Self.decompresses) } else { false }
        self.clientDecompresses = clientDecompresses
        // gzip and deflate are decoded whenever it is known who decodes them.
        self.requestsCompression = requestsCompression ?? (clientDecompresses != nil)
    }

    private static func decompresses(_ configuration: HTTPClient.Configuration) -> Bool {
        if case .enabled = configuration.decompression { return true }
        return false
    }

    /// A transport over a client whose redirect mode the caller has already checked.
    init(checkedClient client: HTTPClient, configuration: HTTPClient.Configuration, clientReadTimeout: Duration?) {
        self.client = client
        self.clientDecompresses = Self.decompresses(configuration)
        self.requestsCompression = true   // gzip and deflate are decoded here when the client does not
        self.clientReadTimeout = clientReadTimeout
        self.timeouts = AsyncHTTPClientErrors.ClientTimeouts(configuration, read: clientReadTimeout)
        self.clientFollowsRedirects = false
    }

    /// The idle read timeout of ``recommendedConfiguration()``.
    public static let recommendedReadTimeout: Duration = .seconds(30)

    /// A configuration suited to Courier: no redirects (Courier follows them with its own
    /// credential rules), the client's decompression off (the transport inflates gzip and
    /// deflate itself), a 10 s connect timeout and a 30 s idle read timeout (the longest a
    /// silent server can hold a request past its deadline while the body streams).
    /// AsyncHTTPClient's own tracing is off: `CourierTracing` records one span per request,
    /// query redacted, instead of two.
    ///
    /// Why the transport inflates rather than the client: AsyncHTTPClient inflates each network
    /// read whole before anyone reads it, so one 64 KiB read of a gzip bomb (deflate reaches
    /// ~1,032:1) can hold ~66 MiB per request before Courier counts a byte. The transport
    /// inflates at most 64 KiB per chunk read, and reads the network only when zlib has used up
    /// the last read: `APIConfiguration.maxResponseSize` counts decoded bytes and stops
    /// a bomb with an `APIError` of kind `APIError.Kind.resourceTooLarge`
    /// with one compressed read (and about one more in AsyncHTTPClient's buffer) and 64 KiB of
    /// output in memory. Raw calls of your own through a client of this configuration get no
    /// decompression: they see gzip bytes if a server compresses anyway. There is no ratio limit: a
    /// ratio limit refuses legitimate JSON, which often compresses 200–300:1.
    public static func recommendedConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .nanoseconds(recommendedReadTimeout.saturatingNanoseconds)),
            decompression: .disabled
        )
        configuration.httpVersion = .automatic
        // AsyncHTTPClient's own tracer would add a second client span per request, with the
        // query unredacted (`url.full`). Courier's TracingMiddleware records the one span, with
        // secrets redacted and the route template as its name.
        configuration.tracing.tracer = nil
        return configuration
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        if clientFollowsRedirects == true { throw ClientRedirectMode.refusal }
        var outgoing = HTTPClientRequest(url: request.urlString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.reserveCapacity(request.headerFields.count + 1)
        var hasAcceptEncoding = false
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
            if field.name == .acceptEncoding { hasAcceptEncoding = true }
        }
        if requestsCompression, !hasAcceptEncoding {
            outgoing.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        var uploaded: ByteBufferSequence?   // a body whose progress is reported
        let upload = context.bodyChannels.upload(of: body)
        if body != nil, upload?.progress == nil, context.bodyChannels.uploadActivity == nil,
           let held = upload?.heldBytes, held.data.count <= Self.inMemoryBodyLimit {
            // Bytes the client holds (a JSON, `Data` or form body, passed on unchanged by the
            // middleware): AsyncHTTPClient writes them in one piece on its event loop, without
            // the hops between the loop and a task that each chunk of a streamed body costs.
            // Not under an idle timeout: the streamed body tells the watch when the connection
            // takes its bytes, a buffer would not (the watch would run from before the
            // connection was even opened).
            outgoing.body = .bytes(ByteBuffer(bytes: held.data))
        } else if let body {
            let length: HTTPClientRequest.Body.Length
            switch body.length {
            case .known(let count): length = .known(count)
            case .unknown: length = .unknown
            }
            let progress = upload?.progress
            progress?.transportWillSend()
            let sequence = ByteBufferSequence(body: body, progress: progress, activity: context.bodyChannels.uploadActivity, eventLoops: client.eventLoopGroup)
            if progress != nil { uploaded = sequence }
            outgoing.body = .stream(sequence, length: length)
        }

        // Saturating: a caller's deadline can be `.seconds(Int64.max)` away.
        let remaining = context.remainingTime.clampedToLongestWait.saturatingNanoseconds
        let deadline = NIODeadline.now() + .nanoseconds(remaining)

        // Under an idle timeout, the exchange is watched from here: the wait for a connection and
        // its setup, then each chunk the connection takes (see ByteBufferSequence).
        if body != nil { context.bodyChannels.uploadActivity?.begin() }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: deadline, logger: nil)
        } catch {
            throw AsyncHTTPClientErrors.map(error, timeouts: timeouts)
        }
        if response.history.count > 1 {
            // The client followed a redirect Courier never saw (its mode could not be read).
            throw ClientRedirectMode.refusal
        }
        uploaded?.reportSent()

        var head = HTTPResponse(status: try HTTPResponse.Status.checked(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase))
        var fields = ResponseFieldsBuilder(expecting: response.headers.count)
        // The two fields the transport reads are picked up on the way: an `HTTPFields` lookup
        // by name builds an index of all the fields first.
        var contentEncoding: String?
        var contentLength: String?
        for (name, value) in response.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            try fields.append(HTTPField(name: fieldName, value: value))
            if fieldName == .contentEncoding {
                contentEncoding = contentEncoding.map { $0 + ", " + value } ?? value
            } else if fieldName == .contentLength {
                contentLength = value
            }
        }
        head.headerFields = fields.fields

        if request.method == .head || response.status.code == 204 || response.status.code == 304 {
            // No body follows, but the exchange ends only when AsyncHTTPClient has seen the end
            // of the response: dropping `response.body` before that cancels the request and
            // closes the connection. Reading the empty body waits for the end, so the connection
            // goes back to the pool (a cache's `304`s reused it one time in six without this).
            if response.version.major >= 2 {
                // Until the deadline only: over HTTP/2 a server can leave such a stream open (or
                // send DATA on it) for ever.
                var rest = ResponseBodySequence(body: response.body, deadline: context.deadline, readTimeout: clientReadTimeout).makeAsyncIterator()
                while try await rest.nextBuffer() != nil {}
            } else {
                // HTTP/1.1's framing ends the body at the head: no timer needed.
                do {
                    for try await _ in response.body {}
                } catch {
                    throw AsyncHTTPClientErrors.map(error, timeouts: timeouts)
                }
            }
            return (head, nil)
        }
        if let encoding = contentEncoding, encoding.contains(",") {
            // One gzip or deflate layer is decoded (by the transport or the client); a stack of
            // codings would reach the caller still encoded (and stacks are a known
            // decompression-bomb vector). Checked only when a body follows, as URLSession does.
            throw TransportError(.other, "the response has stacked content codings ('\(LogSafeText.escape(String(encoding.prefix(60))))'); at most one is accepted")
        }
        var inflating: String?
        if let encoding = contentEncoding {
            switch Self.decoding(of: encoding, clientDecompresses: clientDecompresses) {
            case .identity, .byClient: break
            case .byTransport: inflating = encoding.lowercased()
            case .unsupported:
                // Never hand on a body that is still encoded as if it were the content (`br`,
                // `zstd`, anything unknown).
                throw TransportError(.other, "the response is encoded with '\(LogSafeText.escape(String(encoding.prefix(60))))', which this transport does not decode (it decodes gzip and deflate, and x-gzip when the HTTPClient's own decompression is off)")
            case .unknownDecoder:
                throw TransportError(.other, "the response is encoded with '\(LogSafeText.escape(String(encoding.prefix(60))))', and whether the HTTPClient inflates it is unknown (this AsyncHTTPClient version hides its configuration), so it is refused rather than risk inflating it twice or not at all")
            }
        }
        var bodyLength = HTTPBody.Length.unknown
        if contentEncoding == nil, let value = contentLength, let count = BodyReading.contentLength(value) {
            bodyLength = .known(count)
        }
        let body = ResponseBodySequence(body: response.body, deadline: context.deadline, readTimeout: clientReadTimeout, inflating: inflating)
        if context.collectsResponseBody, context.idleTimeout == nil, case .known(let length) = bodyLength,
           length <= Int64(min(Self.wholeBodyLimit, context.maxResponseSize)) {
            let bytes = try await Self.readWhole(body, length: Int(length))
            let whole = HTTPBody.holding(bytes)
            context.bodyChannels.wholeResponse?.leave(bytes, for: whole)
            return (head, whole)
        }
        return (head, HTTPBody(body, length: bodyLength, iterationBehavior: .single))
    }

    /// The largest body of bytes in memory sent as one `ByteBuffer` rather than streamed (when
    /// no progress handler and no idle timeout needs to hear of each chunk): one upload chunk,
    /// so a larger body is still read as the connection takes it rather than copied whole.
    static let inMemoryBodyLimit = 64 * 1024

    /// The largest body, by its `Content-Length`, read whole here when the client collects it
    /// anyway (``Courier/RequestContext/collectsResponseBody``); larger ones, and bodies of
    /// unknown length, stream to the client, which enforces its size limit as they arrive.
    static let wholeBodyLimit = 256 * 1024

    /// A body of announced `length` read to its end (so the connection goes back to the pool
    /// here) and handed on as one in-memory chunk, also left in the client's
    /// `WholeResponseBody` so that it collects the bytes without iterating the body. Streamed
    /// through `HTTPBody` instead, every chunk and the end would each be an async call through
    /// its type-erased iterator and the transport's (see BENCHMARKS.md). A server that sends more than it announced is refused.
    ///
    /// The bytes go straight from the `ByteBuffer`s into the `Data` the client returns: one copy
    /// (into `[UInt8]` first, then into `Data`, was two).
    static func readWhole(_ body: ResponseBodySequence, length: Int) async throws -> Data {
        var bytes = Data(capacity: length)
        var chunks = body.makeAsyncIterator()
        while let buffer = try await chunks.nextBuffer() {
            guard bytes.count + buffer.readableBytes <= length else {
                throw TransportError(.other, "the response body is longer than its Content-Length (\(length) bytes)")
            }
            buffer.withUnsafeReadableBytes { raw in
                if let base = raw.baseAddress { bytes.append(base.assumingMemoryBound(to: UInt8.self), count: raw.count) }
            }
        }
        return bytes
    }
}

extension AsyncHTTPClientTransport {
    /// Who decodes a body in a given `Content-Encoding`.
    enum Decoding: Equatable {
        /// Nobody needs to: `identity`.
        case identity
        /// The `HTTPClient` (its decompression is on): `gzip` and `deflate`.
        case byClient
        /// The transport, with ``ResponseInflater``: `gzip` and `deflate` from a client whose
        /// decompression is off (the recommended configuration).
        case byTransport
        /// Nobody: `br`, `zstd`, anything unknown.
        case unsupported
        /// Nobody: `gzip` or `deflate` from a client whose decompression setting could not be
        /// read (the transport would inflate a body twice, or not at all).
        case unknownDecoder
    }

    /// Who decodes a body in `encoding` (`clientDecompresses`: `nil` when unknown).
    static func decoding(of encoding: String, clientDecompresses: Bool?) -> Decoding {
        // Coding names are case-insensitive (RFC 9110 §8.4.1); NIO's decompressor inflates `GZIP` too.
        switch encoding.lowercased() {
        case "identity", "": return .identity
        case "gzip", "deflate":
            switch clientDecompresses {
            case true?: return .byClient
            case false?: return .byTransport
            case nil: return .unknownDecoder
            }
        case "x-gzip":
            // RFC 9110 §8.4.1.3: gzip by its old name. SwiftNIO's decompressor does not know it.
            switch clientDecompresses {
            case true?: return .unsupported
            case false?: return .byTransport
            case nil: return .unknownDecoder
            }
        default: return .unsupported
        }
    }
}

/// The process-wide client used when none is given. Created on first use; never shut down
/// (like `HTTPClient.shared`), so it is safe to use from anywhere at any time.
enum SharedHTTPClient {
    static let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.recommendedConfiguration())
}
