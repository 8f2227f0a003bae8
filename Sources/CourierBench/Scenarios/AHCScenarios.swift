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

    /// The experiment run only when asked for by name: `ahc.post.raw` and `ahc.post.courier`,
    /// a `POST` of one user as JSON (encoded on both sides for each request), answered with
    /// the byte count, which both sides check.
    func experimentScenarios(baseURL: URL) -> [Scenario] {
        let raw = self.raw
        let client = self.client
        var post = HTTPClientRequest(url: baseURL.absoluteString + Fixtures.uploadPath)
        post.method = .POST
        post.headers.add(name: "Content-Type", value: "application/json")
        let encoder = JSONEncoder()
        let expected = PostUser.expectedAnswer
        return [
            Scenario(key: "ahc.post.raw", label: "AsyncHTTPClient (raw) POST of JSON (experiment)", family: "experiments") { [post] in
                var post = post
                post.body = .bytes(ByteBuffer(bytes: try encoder.encode(PostUser.sample)))
                let response = try await raw.execute(post, timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 1024)
                guard response.status == .ok, Data(body.readableBytesView) == expected else {
                    throw UnexpectedAnswer(description: "HTTP \(response.status.code), not the body's length")
                }
            },
            Scenario(key: "ahc.post.courier", label: "Courier over AsyncHTTPClient POST of JSON (experiment)", family: "experiments") {
                let data = try await client.send(PostUser(user: PostUser.sample))
                guard data == expected else { throw UnexpectedAnswer(description: "the server read \(String(decoding: data, as: UTF8.self)) bytes") }
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
