import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import Foundation
import HTTPTypes
import NIOSSL
import Testing

/// Courier over HTTP/2, against a server that speaks nothing else. AsyncHTTPClient only: it
/// negotiates HTTP/2 over TLS; FoundationNetworking's libcurl here does not.
// Serialized, as the other TLS suites are: handshakes in a debug build are slow on a loaded run.
@Suite("HTTP/2 (AsyncHTTPClient)", .serialized)
struct HTTP2Tests {
    struct Item: Codable, Equatable, Sendable {
        var id: Int
        var name: String
    }

    /// A fresh authority, an HTTP/2 server giving `answer`, and a client over an HTTPClient that
    /// trusts the authority and whose read timeout is ten minutes away (so only the request's
    /// own deadline, `timeout`, can end a wait); everything is shut down afterwards.
    private func withServer(
        _ answer: HTTP2TestServer.Answer, timeout: Duration,
        _ body: (APIClient, HTTP2TestServer, HTTPClient) async throws -> Void
    ) async throws {
        let authority = try TestCertificateAuthority()
        let server = try await HTTP2TestServer.start(tls: .init(try authority.validLeaf()), answer: answer)
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([authority.certificate])
        configuration.tlsConfiguration = tls
        configuration.httpVersion = .automatic
        configuration.timeout.read = .minutes(10)
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: timeout),
                               transport: AsyncHTTPClientTransport(client: httpClient, clientReadTimeout: .seconds(600)))
        do {
            try await body(client, server, httpClient)
        } catch {
            try? await httpClient.shutdown()
            await server.stop()
            throw error
        }
        try? await httpClient.shutdown()
        await server.stop()
    }

    @Test("a JSON response over HTTP/2 is decoded, and its stream's end completes the exchange")
    func decodes() async throws {
        let items = [Item(id: 1, name: "Ada"), Item(id: 2, name: "Grace")]
        try await withServer(.complete(status: 200, body: try JSONEncoder().encode(items)), timeout: .seconds(60)) { (client: APIClient, server: HTTP2TestServer, _: HTTPClient) async throws in
            #expect(try await client.send(Request<[Item]>(path: "/items")) == items)
            #expect(try await client.send(Request<[Item]>(path: "/items")) == items)
            #expect(server.requestsAnswered == 2)
        }
    }

    /// A request and the status the server answers it with.
    struct OpenStreamCase: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var status: Int
        var testDescription: String { "\(method) answered \(status)" }
    }

    static let openStreamCases = [
        OpenStreamCase(method: .head, status: 200), OpenStreamCase(method: .get, status: 204), OpenStreamCase(method: .get, status: 304),
    ]

    /// Over HTTP/2 a response without a body (`HEAD`, `204`, `304`) ends only when its stream
    /// does, and a server can leave the stream open. AsyncHTTPClient's own deadline ends at the
    /// response head, so the transport's wait for the end must stop at the request's deadline.
    @Test("the wait for the end of a bodiless HTTP/2 response stops at the request's deadline", arguments: openStreamCases)
    func bodilessResponseEndsAtTheDeadline(_ testCase: OpenStreamCase) async throws {
        try await withServer(.headOnly(status: testCase.status), timeout: .seconds(60)) { (client: APIClient, server: HTTP2TestServer, httpClient: HTTPClient) async throws in
            // The connection first (TCP, TLS and HTTP/2 settings are slow in a debug build on a
            // loaded machine), so the 2 s deadline below covers only the open stream.
            #expect(try await client.send(Request<Data>(path: "/warm")) == Data("[]".utf8))
            // The hang guard: a wait that ignores the deadline ignores task cancellation too, so
            // after 90 s the client is shut down, which ends the wait with a connection error.
            let clock = ContinuousClock()
            let start = clock.now
            let request = Request<Empty>(method: testCase.method, path: "/open").options { $0.timeout = .seconds(2) }
            let sending = Task { try await client.send(request) }
            let hangGuard = Task {
                try await Task.sleep(for: .seconds(90))
                try? await httpClient.shutdown()
            }
            let result = await sending.result
            hangGuard.cancel()
            #expect(clock.now - start < .seconds(90), "a hang guard, not a timing measurement")
            #expect(throws: APIError.self) { try result.get() }
            if case .failure(let error as APIError) = result {
                #expect(error.kind == .timeout)
                #expect(error.timeLimit == .seconds(2), "the request's own deadline ended the wait")
            }
            #expect(server.requestsAnswered == 2, "both requests reached the server as HTTP/2 streams")
        }
    }
}
