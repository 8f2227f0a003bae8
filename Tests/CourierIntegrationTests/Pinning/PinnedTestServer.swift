import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import Foundation
import NIOSSL

/// What the pinning suites share: an HTTPS fault server with a leaf from a fresh authority, and
/// a pinning transport that trusts that authority.
enum PinnedTestServer {
    /// Courier's recommended configuration, trusting `authority`.
    static func configuration(trusting authority: TestCertificateAuthority) -> HTTPClient.Configuration {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([authority.certificate])
        configuration.tlsConfiguration = tls
        return configuration
    }

    /// Starts the server and a client over a `PinningAsyncHTTPClientTransport`; `pinning` gets
    /// the leaf to build its pins from. Both are stopped when `body` returns or throws.
    static func run(
        pinning: (TestCertificate) -> CertificatePinning,
        _ body: (PinningAsyncHTTPClientTransport, APIClient, FaultServer, TestCertificate) async throws -> Void
    ) async throws {
        let authority = try TestCertificateAuthority()
        let leaf = try authority.validLeaf()
        let server = try await FaultServer.start(tls: .init(leaf))
        let transport = PinningAsyncHTTPClientTransport(pinning: pinning(leaf), configuration: configuration(trusting: authority))
        let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(300)), transport: transport)
        do {
            try await body(transport, client, server, leaf)
        } catch {
            try? await transport.shutdown()
            await server.stop()
            throw error
        }
        try await transport.shutdown()
        await server.stop()
    }
}
