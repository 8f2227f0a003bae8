import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import Foundation
import NIOSSL
import Testing

@Suite("Certificate pinning over AsyncHTTPClient", .serialized)
struct CertificatePinningTests {
    /// Courier's recommended configuration, trusting the test authority.
    private func configuration(trusting authority: TestCertificateAuthority) -> HTTPClient.Configuration {
        PinnedTestServer.configuration(trusting: authority)
    }

    /// Starts an HTTPS fault server with a leaf from a fresh authority, and a pinning client
    /// trusting that authority; `pinning` gets the leaf to build its pins from.
    private func withPinnedClient(
        _ pinning: (TestCertificate) -> CertificatePinning,
        _ body: (APIClient, FaultServer, TestCertificate) async throws -> Void
    ) async throws {
        try await PinnedTestServer.run(pinning: pinning) { _, client, server, leaf in try await body(client, server, leaf) }
    }

    @Test("pins are SHA-256 of the DER SubjectPublicKeyInfo (as openssl computes them)")
    func pinComputation() throws {
        // Known answer: a certificate made with openssl, and the pins openssl computed.
        #expect(try CertificatePinning.Pin.spki(of: OpenSSLKnownAnswer.certificate) == .spki(OpenSSLKnownAnswer.spkiPin))
        #expect(try CertificatePinning.Pin.certificate(of: OpenSSLKnownAnswer.certificate) == .certificate(OpenSSLKnownAnswer.certificatePin))
        #expect(CertificatePinning.Pin.spki("sha256/" + OpenSSLKnownAnswer.spkiPin) == .spki(OpenSSLKnownAnswer.spkiPin))
        // A generated certificate: Courier (from NIOSSL) and the test authority (from
        // swift-crypto's key) agree on both pins.
        let leaf = try TestCertificateAuthority().validLeaf()
        #expect(leaf.subjectPublicKeyInfo.count == 91)
        #expect(try CertificatePinning.Pin.spki(of: leaf.certificate) == .spki(leaf.spkiPin))
        #expect(try CertificatePinning.Pin.certificate(of: leaf.certificate) == .certificate(leaf.certificatePin))
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
        let pins: [(TestCertificate) -> CertificatePinning.Pin] = [{ .spki($0.spkiPin) }, { .certificate($0.certificatePin) }]
        for pin in pins {
            try await withPinnedClient({ CertificatePinning(pins: ["127.0.0.1": [.spki(Data(repeating: 1, count: 32).base64EncodedString()), pin($0)]]) }) { (client: APIClient, server: FaultServer, _: TestCertificate) async throws in
                #expect(try await client.send(Request<Data>(path: "/ok")).count == 11)
                #expect(server.requestCount == 1)
            }
        }
    }

    @Test("a wrong pin fails at once with a pinning error, and no request reaches the server")
    func wrongPin() async throws {
        let wrong = CertificatePinning.Pin.spki(Data(repeating: 7, count: 32).base64EncodedString())
        try await withPinnedClient({ _ in CertificatePinning(pins: ["127.0.0.1": [wrong]]) }) { (client: APIClient, server: FaultServer, leaf: TestCertificate) async throws in
            let elapsed = try await ContinuousClock().measure {
                let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/ok")) }
                guard let apiError = error, apiError.kind == .network, let underlying = apiError.underlyingError, let transportError = underlying as? TransportError else {
                    Issue.record("expected a network error with a TransportError, got \(String(describing: error))")
                    return
                }
                #expect(transportError.kind == .tls)
                #expect(transportError.requestMayHaveBeenSent == false)
                let pinning = try #require(transportError.underlying as? CertificatePinningError)
                #expect(pinning.received == .spki(leaf.spkiPin))
                #expect("\(pinning)".contains("127.0.0.1"))
            }
            // "At once": well before the client's 300 s deadline (TLS in a debug build on a loaded
            // CI run is slow: a handshake that succeeds has taken over 10 s there).
            #expect(elapsed < .seconds(90), "a hang guard: a refused pin must not wait for the deadline")
            #expect(server.requestCount == 0)
        }
    }

    @Test("a percent-encoded host (127%2E0%2E0%2E1) is the host it decodes to: its pins apply")
    func percentEncodedHost() async throws {
        let wrong = CertificatePinning.Pin.spki(Data(repeating: 7, count: 32).base64EncodedString())
        try await withPinnedClient({ _ in CertificatePinning(pins: ["127.0.0.1": [wrong]]) }) { (client: APIClient, server: FaultServer, _: TestCertificate) async throws in
            let port = try #require(server.baseURL.port)
            await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "https://127%2E0%2E0%2E1:\(port)/ok")) }
            #expect(server.requestCount == 0, "the request reached the pinned host past its pins")
        }
    }

    @Test("a connection refused by its pins is closed, not left open (a man in the middle holding it would use up descriptors)")
    func refusedConnectionsAreClosed() async throws {
        let wrong = CertificatePinning.Pin.spki(Data(repeating: 7, count: 32).base64EncodedString())
        try await withPinnedClient({ _ in CertificatePinning(pins: ["127.0.0.1": [wrong]]) }) { (client: APIClient, server: FaultServer, _: TestCertificate) async throws in
            for _ in 0..<3 {
                await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/ok")) }
            }
            #expect(server.connectionCount >= 3)
            let deadline = ContinuousClock.now + .seconds(120)   // a hang guard (loaded machines stall tests for 20 s)
            while server.openConnections > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(server.openConnections == 0, "\(server.openConnections) of \(server.connectionCount) refused connections still open")
        }
    }

    @Test("an excluded host is not pinned")
    func excludedHost() async throws {
        let wrong = CertificatePinning.Pin.spki(Data(repeating: 7, count: 32).base64EncodedString())
        try await withPinnedClient({ _ in CertificatePinning(pins: ["127.0.0.1": [wrong]], excludedHosts: ["127.0.0.1"]) }) { (client: APIClient, _: FaultServer, _: TestCertificate) async throws in
            #expect(try await client.send(Request<Data>(path: "/ok")).count == 11)
        }
    }

    @Test("plain http to a pinned host is refused")
    func httpRefused() async throws {
        let transport = PinningAsyncHTTPClientTransport(pinning: CertificatePinning(pins: ["127.0.0.1": [.spki(OpenSSLKnownAnswer.spkiPin)]]))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!), transport: transport)
        await #expect(throws: APIError.self) { try await client.send(Request<String>(path: "/")) }
        try await transport.shutdown()
    }
}
