import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Answers requests from a cassette written by ``RecordingTransport``, with no network.
///
/// Requests are matched by method and URL (secret query values ignored, as they were redacted
/// when recording). Exchanges with the same key are answered in the order they were recorded;
/// the last one repeats. A request that was never recorded fails with ``UnknownRequest``, which
/// names it and lists what the cassette holds.
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
        public var description: String {
            "ReplayTransport: no recorded exchange for \(request). The cassette has: "
                + (recorded.isEmpty ? "nothing" : recorded.joined(separator: ", "))
        }
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
        let key = Cassette.key(method: request.method.rawValue, url: Cassette.url(of: request))
        let candidates = cassette.exchanges.filter { Cassette.key(method: $0.request.method ?? "", url: $0.request.url ?? "") == key }
        guard !candidates.isEmpty else {
            throw UnknownRequest(request: key, recorded: cassette.exchanges.map { "\($0.request.method ?? "?") \($0.request.url ?? "?")" })
        }
        let index = served.withLock { served -> Int in
            let index = served[key, default: 0]
            served[key] = index + 1
            return min(index, candidates.count - 1)
        }
        let recorded = candidates[index].response
        var head = HTTPResponse(status: .init(code: recorded.status ?? 200))
        head.headerFields = recorded.headerFields
        return (head, request.method == .head ? nil : HTTPBody(recorded.bodyData))
    }
}
