import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import Foundation
import HTTPTypes
import NIOSSL
import Testing

/// Over HTTP/2 a response without a body (`HEAD`, `204`, `304`) ends only when its stream
/// does, and a server can leave the stream open. AsyncHTTPClient's own deadline ends at the
/// response head, so the transport's wait for the end must stop at the request's deadline.
/// AsyncHTTPClient only: it speaks HTTP/2 (negotiated over TLS); FoundationNetworking's
/// libcurl here does not.
// Serialized, as the other TLS suites are: handshakes in a debug build are slow on a loaded run.
@Suite("HTTP/2 responses whose stream is never ended", .serialized)
struct HTTP2OpenStreamTests {
    /// A request and the status the server answers it with.
    struct Case: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var status: Int
        var testDescription: String { "\(method) answered \(status)" }
    }

    static let cases = [Case(method: .head, status: 200), Case(method: .get, status: 204), Case(method: .get, status: 304)]

    @Test("the wait for the end of a bodiless HTTP/2 response stops at the request's deadline", arguments: cases)
    func endsAtTheDeadline(_ testCase: Case) async throws {
        let authority = try TestCertificateAuthority()
        let server = try await OpenStreamHTTP2Server.start(tls: .init(try authority.validLeaf()), status: testCase.status)
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([authority.certificate])
        configuration.tlsConfiguration = tls
        configuration.httpVersion = .automatic
        // Only the request's deadline may end the wait: AsyncHTTPClient's read timeout is ten
        // minutes away, beyond the hang guard below.
        configuration.timeout.read = .minutes(10)
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(2)),
                               transport: AsyncHTTPClientTransport(client: httpClient, clientReadTimeout: .seconds(600)))
        // The hang guard: a wait that ignores the deadline ignores task cancellation too, so
        // after 90 s the client is shut down, which ends the wait with a connection error.
        let clock = ContinuousClock()
        let start = clock.now
        let sending = Task { try await client.send(Request<Empty>(method: testCase.method, path: "/open")) }
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
        #expect(server.requestsAnswered == 1, "the request reached the server as an HTTP/2 stream")
        try? await httpClient.shutdown()
        await server.stop()
    }
}
