import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends requests through a real transport and writes every exchange to a cassette file, with
/// secrets redacted, for ``ReplayTransport`` to answer later without the network.
///
/// ```swift
/// let recorder = RecordingTransport(AsyncHTTPClientTransport(), file: fixturesDir.appendingPathComponent("users.json"))
/// let client = APIClient(configuration: configuration, transport: recorder)
/// _ = try await client.send(GetUser(id: "1"))          // really sent, and recorded
/// ```
///
/// Redacted: the values of `Authorization`, `Cookie`, `Set-Cookie`, API-key headers and any
/// header or query parameter whose name looks secret (``Courier/Redaction``), plus the headers
/// in `redactHeaders`. Bodies are recorded as they are: keep secrets out of them, or pass
/// `redactBody`. The response body is read whole to record it (up to the request's
/// `maxResponseSize`), then handed on; do not record endless streams. The file is rewritten
/// after each exchange, so a test that crashes keeps what it did so far.
public final class RecordingTransport: Transport {
    private let upstream: any Transport
    /// The cassette file.
    public let file: URL
    private let extraHeaders: Set<HTTPField.Name>
    private let redactBody: @Sendable (Data) -> Data
    private let cassette = Locked(Cassette())

    /// Records the exchanges `transport` makes into `file` (replacing what it held).
    public init(
        _ transport: any Transport,
        file: URL,
        redactHeaders: Set<HTTPField.Name> = [],
        redactBody: @escaping @Sendable (Data) -> Data = { $0 }
    ) {
        self.upstream = transport
        self.file = file
        self.extraHeaders = redactHeaders
        self.redactBody = redactBody
    }

    /// What has been recorded so far.
    public var recorded: Cassette { cassette.current }

    public func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        var requestBody = Data()
        var forwarded = body
        if let body {
            requestBody = try await Data(collecting: body, upTo: .max)
            forwarded = HTTPBody(requestBody)
        }
        let (response, responseBody) = try await upstream.send(request, body: forwarded, context: context)
        let data = try await Data(collecting: responseBody ?? HTTPBody(), upTo: context.maxResponseSize)

        let (reqText, reqEncoding) = Cassette.RecordedMessage.encodeBody(redactBody(requestBody))
        let (resText, resEncoding) = Cassette.RecordedMessage.encodeBody(redactBody(data))
        let exchange = Cassette.Exchange(
            request: Cassette.RecordedMessage(
                method: request.method.rawValue, url: Redaction.redactQuery(inTarget: Cassette.url(of: request)), status: nil,
                headers: Cassette.RecordedMessage.encodeHeaders(request.headerFields, redacting: extraHeaders),
                body: reqText, bodyEncoding: reqEncoding),
            response: Cassette.RecordedMessage(
                method: nil, url: nil, status: response.status.code,
                headers: Cassette.RecordedMessage.encodeHeaders(response.headerFields, redacting: extraHeaders),
                body: resText, bodyEncoding: resEncoding)
        )
        let snapshot = cassette.withLock { cassette -> Cassette in
            cassette.exchanges.append(exchange)
            return cassette
        }
        try snapshot.write(to: file)
        return (response, responseBody == nil ? nil : HTTPBody(data))
    }
}
