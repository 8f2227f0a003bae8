import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOSSL
import Testing

@Suite("Certificate pinning over AsyncHTTPClient", .serialized)
struct CertificatePinningTests {
    /// Courier's recommended configuration, trusting the test server's self-signed certificate.
    private func configuration() -> HTTPClient.Configuration {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([TLSTestServer.certificate])
        configuration.tlsConfiguration = tls
        return configuration
    }

    private func withPinnedClient(
        _ pinning: CertificatePinning,
        _ body: (APIClient, TLSTestServer) async throws -> Void
    ) async throws {
        let server = try await TLSTestServer.start()
        let transport = PinningAsyncHTTPClientTransport(pinning: pinning, configuration: configuration())
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://127.0.0.1:\(server.port)")!, timeout: .seconds(10)),
                               transport: transport)
        do {
            try await body(client, server)
        } catch {
            try? await transport.shutdown()
            try? await server.stop()
            throw error
        }
        try await transport.shutdown()
        try await server.stop()
    }

    @Test("pins are SHA-256 of the DER SubjectPublicKeyInfo (as openssl computes them)")
    func pinComputation() throws {
        #expect(try CertificatePinning.Pin.spki(of: TLSTestServer.certificate) == .spki(TLSTestServer.spkiPin))
        #expect(try CertificatePinning.Pin.certificate(of: TLSTestServer.certificate) == .certificate(TLSTestServer.certificatePin))
        #expect(CertificatePinning.Pin.spki("sha256/" + TLSTestServer.spkiPin) == .spki(TLSTestServer.spkiPin))
    }

    @Test("host names are normalised: case and a trailing dot cannot slip past a pin")
    func hostNormalisation() {
        let pinning = CertificatePinning(pins: ["API.Example.com.": [.spki("AAAA")]], excludedHosts: ["Static.Example.com."])
        #expect(pinning.pins(for: "api.example.com") != nil)
        #expect(pinning.pins(for: "API.EXAMPLE.COM.") != nil)
        #expect(pinning.pins(for: "static.example.com") == nil)
        #expect(pinning.pins(for: "other.example.com") == nil)
    }

    @Test("the right SPKI pin passes; a certificate pin passes too")
    func rightPin() async throws {
        for pin in [CertificatePinning.Pin.spki(TLSTestServer.spkiPin), .certificate(TLSTestServer.certificatePin)] {
            try await withPinnedClient(CertificatePinning(pins: ["127.0.0.1": [.spki("AAAA"), pin]])) { (client: APIClient, server: TLSTestServer) async throws in
                #expect(try await client.send(Request<String>(path: "/hello")) == "ok")
                #expect(server.counter.value == 1)
            }
        }
    }

    @Test("a wrong pin fails at once with a pinning error, and no request reaches the server")
    func wrongPin() async throws {
        let wrong = CertificatePinning.Pin.spki(Data(repeating: 7, count: 32).base64EncodedString())
        try await withPinnedClient(CertificatePinning(pins: ["127.0.0.1": [wrong]])) { (client: APIClient, server: TLSTestServer) async throws in
            let elapsed = try await ContinuousClock().measure {
                let error = await #expect(throws: APIError.self) { try await client.send(Request<String>(path: "/hello")) }
                guard case .network(_, let underlying)? = error, let transportError = underlying as? TransportError else {
                    Issue.record("expected a network error with a TransportError, got \(String(describing: error))")
                    return
                }
                #expect(transportError.kind == .tls)
                #expect(transportError.requestMayHaveBeenSent == false)
                let pinning = try #require(transportError.underlying as? CertificatePinningError)
                #expect(pinning.received == .spki(TLSTestServer.spkiPin))
                #expect("\(pinning)".contains("127.0.0.1"))
            }
            #expect(elapsed < .seconds(3))
            #expect(server.counter.value == 0)
        }
    }

    @Test("an excluded host is not pinned")
    func excludedHost() async throws {
        let wrong = CertificatePinning.Pin.spki(Data(repeating: 7, count: 32).base64EncodedString())
        try await withPinnedClient(CertificatePinning(pins: ["127.0.0.1": [wrong]], excludedHosts: ["127.0.0.1"])) { (client: APIClient, _: TLSTestServer) async throws in
            #expect(try await client.send(Request<String>(path: "/hello")) == "ok")
        }
    }

    @Test("plain http to a pinned host is refused")
    func httpRefused() async throws {
        let transport = PinningAsyncHTTPClientTransport(pinning: CertificatePinning(pins: ["127.0.0.1": [.spki(TLSTestServer.spkiPin)]]))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!), transport: transport)
        await #expect(throws: APIError.self) { try await client.send(Request<String>(path: "/")) }
        try await transport.shutdown()
    }
}
