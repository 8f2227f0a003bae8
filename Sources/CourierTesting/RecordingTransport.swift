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
/// header whose name looks secret (`Redaction`), plus the headers in `redactHeaders`;
/// the values of secret query parameters (`Redaction.QueryNames.standard`: tokens,
/// keys, pre-signed URL signatures…) plus `redactQueryItems`; and, in JSON bodies (at any depth)
/// and form bodies, requests and responses alike, the fields whose names are secret
/// (`password`, `access_token`, `refresh_token`, `id_token`, `client_secret`, `api_key`,
/// `secret`, `sig`…) plus `redactBodyFields` — their values become `"<redacted>"`; a JSON body
/// that had one is re-encoded with sorted keys. Other bodies are kept as they are, except that
/// the values of the request's secret headers and query items are scrubbed from any text body
/// (an API that echoes a token back does not leak it into the file); anything else secret
/// needs `redactBody`, which runs first. The response body is read whole to record it (up to the request's
/// `maxResponseSize`), then handed on; do not record endless streams. The file is rewritten
/// after each exchange, so a test that crashes keeps what it did so far.
public final class RecordingTransport: Transport {
    private let upstream: any Transport
    /// The cassette file.
    public let file: URL
    private let extraHeaders: Set<HTTPField.Name>
    private let queryNames: Redaction.QueryNames
    private let bodyFields: CassetteBodyRedaction
    private let redactBody: @Sendable (Data) -> Data
    private let cassette = Locked(Cassette())

    /// Records the exchanges `transport` makes into `file` (replacing what it held).
    /// - Parameters:
    ///   - transport: the transport that reaches the real server.
    ///   - file: the cassette to write (replaced at the first exchange).
    ///   - redactHeaders: more header names to redact.
    ///   - redactQueryItems: more query parameter names to redact (compared case-insensitively).
    ///   - redactBodyFields: more JSON member or form field names to redact (case-insensitively).
    ///   - redactBody: your own rewrite of every body, applied before the rules above.
    public init(
        _ transport: any Transport,
        file: URL,
        redactHeaders: Set<HTTPField.Name> = [],
        redactQueryItems: Set<String> = [],
        redactBodyFields: Set<String> = [],
        redactBody: @escaping @Sendable (Data) -> Data = { $0 }
    ) {
        self.upstream = transport
        self.file = file
        self.extraHeaders = redactHeaders
        self.queryNames = Redaction.QueryNames.standard.adding(redactQueryItems)
        self.bodyFields = CassetteBodyRedaction(adding: redactBodyFields)
        self.redactBody = redactBody
    }

    /// What has been recorded so far.
    public var recorded: Cassette { cassette.current }

    /// Sends through the real transport and records the exchange.
    public func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        var requestBody = Data()
        var forwarded = body
        if let body {
            requestBody = try await Data(collecting: body, upTo: .max)
            forwarded = HTTPBody(requestBody)
        }
        let (response, responseBody) = try await upstream.send(request, body: forwarded, context: context)
        // Past the limit the client reports `resourceTooLarge` for the request; nothing is recorded.
        let data = try await BodyReading.collect(responseBody, head: response, limit: context.maxResponseSize)

        // The recorder's own secret names and the ones the client knows: its configuration's
        // `sensitiveHeaders`/`sensitiveQueryNames` and those its middleware declared (an API-key
        // header, a signature), which reach the transport in the request context.
        let extraHeaders = self.extraHeaders.union(context.sensitiveHeaders)
        let queryNames = context.sensitiveQueryNames.isEmpty ? self.queryNames : self.queryNames.adding(context.sensitiveQueryNames)
        // Secret values the request carried (headers, query, body fields), longest first, so an
        // answer that echoes them (even inside a JSON string) does not leak them into the file.
        let secrets = (Self.secrets(in: request, extra: extraHeaders, queryNames: queryNames)
            + bodyFields.secretValues(in: requestBody, contentType: request.headerFields[.contentType]).filter { $0.count >= 4 })
            .sorted { $0.count > $1.count }
        let sent = bodyFields.redact(redactBody(requestBody), contentType: request.headerFields[.contentType])
        let received = bodyFields.redact(redactBody(data), contentType: response.headerFields[.contentType])
        let (reqText, reqEncoding) = Cassette.RecordedMessage.encodeBody(Self.scrub(sent, secrets: secrets))
        let (resText, resEncoding) = Cassette.RecordedMessage.encodeBody(Self.scrub(received, secrets: secrets))
        let exchange = Cassette.Exchange(
            request: Cassette.RecordedMessage(
                method: request.method.rawValue, url: queryNames.redact(target: Cassette.url(of: request)), status: nil,
                headers: Cassette.RecordedMessage.encodeHeaders(request.headerFields, redacting: extraHeaders),
                body: reqText, bodyEncoding: reqEncoding),
            response: Cassette.RecordedMessage(
                method: nil, url: nil, status: response.status.code,
                headers: Cassette.RecordedMessage.encodeHeaders(Self.scrub(response.headerFields, queryNames: queryNames, secrets: secrets),
                                                                redacting: extraHeaders),
                body: resText, bodyEncoding: resEncoding)
        )
        // Written under the lock: a copy written after it was released could land after a
        // newer one and replace the file with fewer exchanges (requests recorded at once).
        try cassette.withLock { cassette in
            cassette.exchanges.append(exchange)
            try cassette.write(to: file)
        }
        return (response, responseBody == nil ? nil : HTTPBody(data))
    }

    /// The secret values the request carried: sensitive header values (and the credential
    /// after `Bearer `/`Basic `), and sensitive query values, percent-decoded too.
    static func secrets(in request: HTTPRequest, extra: Set<HTTPField.Name>, queryNames: Redaction.QueryNames = .standard) -> [String] {
        var found: Set<String> = []
        for field in request.headerFields where Redaction.isSensitive(header: field.name, extra: extra) {
            found.insert(field.value)
            if let space = field.value.firstIndex(of: " ") { found.insert(String(field.value[field.value.index(after: space)...])) }
        }
        if let target = request.path, let mark = target.firstIndex(of: "?") {
            for item in target[target.index(after: mark)...].split(separator: "&") {
                guard let eq = item.firstIndex(of: "=") else { continue }
                let name = String(item[..<eq])
                guard queryNames.contains(name.removingPercentEncoding ?? name) else { continue }
                let value = String(item[item.index(after: eq)...])
                found.insert(value)
                if let decoded = value.removingPercentEncoding { found.insert(decoded) }
            }
        }
        // Longest first, so a whole `Bearer x` goes before `x`; very short values would redact noise.
        return found.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
    }

    /// Response header values without secrets: the URLs of `Location` and `Content-Location` with
    /// their secret query values redacted (a redirect to a presigned URL carries its signature),
    /// and any secret value the request carried replaced wherever it is echoed.
    static func scrub(_ fields: HTTPFields, queryNames: Redaction.QueryNames, secrets: [String]) -> HTTPFields {
        var scrubbed = HTTPFields()
        for field in fields {
            var value = field.value
            if field.name == .location || field.name == .contentLocation {
                value = value.hasPrefix("/") ? queryNames.redact(target: value) : queryNames.redact(url: value)
            } else if field.name == Self.link {
                value = redactLinks(value, queryNames: queryNames)
            }
            for secret in secrets where value.contains(secret) {
                value = value.replacingOccurrences(of: secret, with: Redaction.placeholder)
            }
            scrubbed.append(HTTPField(name: field.name, value: value))
        }
        return scrubbed
    }

    private static let link = HTTPField.Name("Link")!

    /// A `Link` field with each `<URL>`'s secret query values redacted (next-page links echo
    /// signed cursors and tokens).
    static func redactLinks(_ value: String, queryNames: Redaction.QueryNames) -> String {
        var out = ""
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            out += rest[...open]
            let url = String(rest[rest.index(after: open)..<close])
            out += url.hasPrefix("/") ? queryNames.redact(target: url) : queryNames.redact(url: url)
            rest = rest[close...]
        }
        return out + rest
    }

    /// `data` with every secret value replaced by the placeholder (text bodies only).
    static func scrub(_ data: Data, secrets: [String]) -> Data {
        guard !secrets.isEmpty, var text = String(data: data, encoding: .utf8) else { return data }
        var changed = false
        for secret in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: Redaction.placeholder)
            changed = true
        }
        return changed ? Data(text.utf8) : data
    }
}
