import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Answers requests from a cassette written by ``RecordingTransport``, with no network.
///
/// Requests are matched by method and URL (secret query values ignored, as they were redacted
/// when recording). Exchanges with the same key are answered in the order they were recorded;
/// the last one repeats. A request that was never recorded fails with ``UnknownRequest``, which
/// names it and lists what the cassette holds; a recorded answer that is not a valid HTTP
/// response (a status outside 100...999, a body marked base64 that does not decode, an unknown body encoding, a header that is not a `[name, value]` pair with a valid name) fails with
/// ``InvalidExchange`` — never the process, never other bytes than were recorded.
/// A query parameter recorded as `<redacted>` matches any value.
///
/// ```swift
/// let client = APIClient(configuration: configuration,
///                        transport: try ReplayTransport(file: fixturesDir.appendingPathComponent("users.json")))
/// ```
public final class ReplayTransport: Transport {
    /// A request the cassette has no exchange for.
    public struct UnknownRequest: Error, Sendable, CustomStringConvertible {
        /// The method and URL (secrets redacted).
        public var request: String
        /// What the cassette can answer.
        public var recorded: [String]
        /// One line: the request and what the cassette can answer.
        public var description: String {
            "ReplayTransport: no recorded exchange for \(request). The cassette has: "
                + (recorded.isEmpty ? "nothing" : recorded.joined(separator: ", "))
        }
    }

    /// A recorded exchange that cannot be answered as recorded (a status outside 100...999, a body marked base64 that does not decode, an unknown body encoding, a header that is not a `[name, value]` pair with a valid name).
    public struct InvalidExchange: Error, Sendable, CustomStringConvertible {
        /// The method and URL of the request it answers (secrets redacted).
        public var request: String
        /// What is wrong with the recorded response.
        public var reason: String
        /// One line: the request and why its recorded answer cannot be replayed.
        public var description: String { "ReplayTransport: the cassette's answer to \(request) cannot be replayed: \(reason)" }
    }

    /// The cassette being replayed.
    public let cassette: Cassette
    private let served = Locked([String: Int]())
    private let requestLog = Locked([HTTPRequest]())

    /// Replays a cassette.
    public init(cassette: Cassette) { self.cassette = cassette }

    /// Replays a cassette file.
    public convenience init(file: URL) throws { self.init(cassette: try Cassette(contentsOf: file)) }

    /// The requests received, in order.
    public var requests: [HTTPRequest] { requestLog.current }

    /// Answers from the cassette, or throws ``UnknownRequest``.
    public func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        if let body { _ = try await Data(collecting: body, upTo: .max) }
        requestLog.withLock { $0.append(request) }
        // The client's own secret query names (its configuration's, its middleware's) are
        // redacted as the recorder redacted them.
        let url = context.queryNames.redact(target: Cassette.url(of: request))
        let key = Cassette.key(method: request.method.rawValue, url: url)
        // A parameter redacted when recording (a name the recorder was told to redact, too)
        // matches whatever the request carries now; the recorded order is counted per recorded
        // request, so a redacted value that changes every time (a timestamp, a nonce) still
        // replays the answers in order.
        var matched = key
        let candidates = cassette.exchanges.filter { exchange in
            let recorded = exchange.request.url ?? ""
            let names = Cassette.redactedNames(in: recorded)
            let recordedKey = Cassette.key(method: exchange.request.method ?? "", url: recorded)
            guard recordedKey == (names.isEmpty ? key : Cassette.key(method: request.method.rawValue, url: url, alsoRedacting: names)) else { return false }
            matched = recordedKey
            return true
        }
        guard !candidates.isEmpty else {
            throw UnknownRequest(request: key, recorded: cassette.exchanges.map { "\($0.request.method ?? "?") \($0.request.url ?? "?")" })
        }
        let index = served.withLock { served -> Int in
            let index = served[matched, default: 0]
            served[matched] = index + 1
            return min(index, candidates.count - 1)
        }
        let recorded = candidates[index].response
        let status = recorded.status ?? 200
        guard (100...999).contains(status) else {
            throw InvalidExchange(request: key, reason: "its status \(status) is not an HTTP status code (100...999)")
        }
        var head = HTTPResponse(status: .init(code: status))
        head.headerFields = try Self.headerFields(of: recorded, request: key)
        guard request.method != .head else { return (head, nil) }
        return (head, HTTPBody(try Self.body(of: recorded, request: key)))
    }

    /// The recorded header fields; a pair that is not `[name, value]` with a valid field name
    /// fails, rather than being dropped.
    private static func headerFields(of recorded: Cassette.RecordedMessage, request key: String) throws -> HTTPFields {
        // A hostile cassette can list more pairs than `HTTPFields` can hold (it traps past
        // 65,534): past the limit every transport enforces, the exchange is invalid.
        guard recorded.headers.count <= HTTPFields.responseFieldLimit else {
            throw InvalidExchange(request: key, reason: "it lists \(recorded.headers.count) header fields, more than a response may have (\(HTTPFields.responseFieldLimit))")
        }
        var fields = HTTPFields()
        for (index, pair) in recorded.headers.enumerated() {
            guard pair.count == 2, let name = HTTPField.Name(pair[0]) else {
                throw InvalidExchange(request: key, reason: "its header #\(index + 1) is not a [name, value] pair with a valid field name")
            }
            fields.append(HTTPField(name: name, value: pair[1]))
        }
        return fields
    }

    /// The recorded body's bytes; an unknown encoding, or base64 that does not decode, fails
    /// rather than replaying other bytes than were recorded.
    private static func body(of recorded: Cassette.RecordedMessage, request key: String) throws -> Data {
        switch recorded.bodyEncoding {
        case nil, "utf8":
            return Data(recorded.body.utf8)
        case "base64":
            guard let data = Data(base64Encoded: recorded.body) else {
                throw InvalidExchange(request: key, reason: "its body is marked base64 but does not decode as base64")
            }
            return data
        case let other?:
            throw InvalidExchange(request: key, reason: "its body encoding '\(LogSafeText.escape(String(other.prefix(40))))' is neither utf8 nor base64")
        }
    }
}
