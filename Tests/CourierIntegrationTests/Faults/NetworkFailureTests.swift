import Courier
import CourierTestServer
import Foundation
import Testing

/// The questions code written for `URLSession` asks of `URLError.code` — no network, no such
/// host, refused, timed out, TLS — answered by `APIError.networkFailure` on both transports,
/// against real sockets: the `catch` a port of seed 003 writes runs on Linux as on Apple.
@Suite("Network failures by name")
struct NetworkFailureTests {
    /// Sends a GET to `url` over `kind` and returns the error it fails with.
    private func failure(_ kind: TransportKind, _ url: String, path: String = "/", timeout: Duration = .seconds(60)) async -> APIError? {
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: url)!, timeout: timeout), transport: kind.makeTransport())
        do {
            _ = try await client.send(Request<Data>(path: RequestPath(verbatim: path)))
            return nil
        } catch {
            return error as? APIError
        }
    }

    @Test("a port nothing listens on is connectionRefused (the seed's default branch)", arguments: TransportKind.allCases)
    func refused(_ kind: TransportKind) async throws {
        let error = try #require(await failure(kind, "http://127.0.0.1:1"))
        #expect(error.kind == .network)
        #expect(error.networkFailure == .connectionRefused, "\(error)")
        #expect((error.urlError != nil) == (kind == .urlSession), "the URLError is there where the platform gave one")
    }

    @Test("a host that does not exist is hostNotFound", arguments: TransportKind.allCases)
    func noSuchHost(_ kind: TransportKind) async throws {
        // `.invalid` never resolves (RFC 6761), with or without a network.
        let error = try #require(await failure(kind, "http://courier-test.invalid"))
        #expect(error.networkFailure == .hostNotFound, "\(error)")
    }

    @Test("the deadline is timedOut, as URLError.timedOut was", arguments: TransportKind.allCases)
    func timedOut(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let error = try #require(await failure(kind, server.baseURL.absoluteString, path: "/never", timeout: .milliseconds(500)))
            #expect(error.kind == .timeout)
            #expect(error.networkFailure == .timedOut, "\(error)")
        }
    }

    @Test("a server whose certificate no one signed is a TLS failure", arguments: TransportKind.allCases)
    func tls(_ kind: TransportKind) async throws {
        // AsyncHTTPClient retries a refused handshake until the deadline, then reports the TLS
        // failure: 2 s keeps the storm short (see TLSFaultTests). URLSession fails at the first
        // handshake: its deadline is only a hang guard.
        let server = try await FaultServer.start(tls: .init(try TestCertificate.selfSigned()))
        let error = await failure(kind, server.baseURL.absoluteString, path: "/ok", timeout: kind == .asyncHTTPClient ? .seconds(2) : .seconds(60))
        await server.stop()
        #expect(error?.networkFailure == .tls, "\(String(describing: error))")
    }

    @Test("offline, as each transport reports it: URLError.notConnectedToInternet, or a socket's ENETUNREACH")
    func offline() async throws {
        // No test machine can be taken off its network: the two reports a transport gives are
        // stubbed, and each is read as the seed's `.notConnectedToInternet` branch.
        let fromURLSession = TransportError(.connectionFailed, "offline", underlying: URLError(.notConnectedToInternet), requestMayHaveBeenSent: false)
        #expect(fromURLSession.networkFailure == .offline)
        #expect(NetworkFailure(errno: ENETUNREACH) == .offline)
        #expect(NetworkFailure(errno: ENETDOWN) == .offline)
        #expect(NetworkFailure(errno: ECONNREFUSED) == .connectionRefused)
    }
}
