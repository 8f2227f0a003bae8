import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOCore

/// Raw AsyncHTTPClient against Courier over ``AsyncHTTPClientTransport``.
///
/// Both sides use an `HTTPClient` built from ``AsyncHTTPClientTransport/recommendedConfiguration()``
/// on the default event loop group — each its own, so neither shares the other's pool — and
/// decode the same JSON with a `JSONDecoder`.
struct AHCScenarios {
    /// The raw client (execute + collect + JSONDecoder).
    let raw: HTTPClient
    /// The client behind Courier's transport.
    let courier: HTTPClient
    /// Courier over `courier`, with no middleware.
    let client: APIClient

    /// Creates both clients for `baseURL`.
    init(baseURL: URL) {
        raw = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.recommendedConfiguration())
        courier = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.recommendedConfiguration())
        client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: AsyncHTTPClientTransport(client: courier, clientReadTimeout: AsyncHTTPClientTransport.recommendedReadTimeout))
    }

    /// `ahc.raw` and `ahc.courier`. With `sameHeaders`, the raw request carries the headers
    /// Courier sends by default (`Accept`, `User-Agent`).
    func scenarios(baseURL: URL, sameHeaders: Bool = false) -> [Scenario] {
        let raw = self.raw
        let client = self.client
        var request = HTTPClientRequest(url: baseURL.absoluteString + Fixtures.usersPath)
        // Part of the configuration both sides share: Courier's transport asks for gzip and
        // deflate (it inflates them), as SwiftNIO's decompressor did for any client of
        // `recommendedConfiguration()` until the transport took inflating over.
        request.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        if sameHeaders {
            for field in CourierHeaders.defaults(of: client) { request.headers.add(name: field.name.rawName, value: field.value) }
        }
        let decoder = JSONDecoder()
        return [
            Scenario(key: "ahc.raw", label: "AsyncHTTPClient (raw)", family: "ahc") { [request] in
                try await Self.rawUsers(raw, request: request, decoder: decoder).check()
            },
            Scenario(key: "ahc.courier", label: "Courier over AsyncHTTPClient", family: "ahc") {
                try await client.send(ListUsers()).check()
            },
        ]
    }

    /// What an application using AsyncHTTPClient directly writes: execute, check the status,
    /// collect the body, decode it.
    static func rawUsers(_ client: HTTPClient, request: HTTPClientRequest, decoder: JSONDecoder) async throws -> [BenchUser] {
        let response = try await client.execute(request, timeout: .seconds(60))
        guard response.status == .ok else { throw UnexpectedAnswer(description: "HTTP \(response.status.code)") }
        let body = try await response.body.collect(upTo: 50 * 1024 * 1024)
        // As NIOFoundationCompat's `JSONDecoder.decode(_:from: ByteBuffer)` does: no copy of the bytes.
        return try body.withUnsafeReadableBytes { bytes in
            try decoder.decode([BenchUser].self, from: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count, deallocator: .none))
        }
    }

    /// Shuts both clients down.
    func shutdown() async throws {
        try await raw.shutdown()
        try await courier.shutdown()
    }
}
