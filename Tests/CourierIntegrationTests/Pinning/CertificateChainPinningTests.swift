import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import Foundation
import NIOSSL
import Testing

/// Issue 12, item 17: pins of a trust anchor and wildcard host keys are enforced over real TLS
/// connections (a fault server presenting a leaf of a generated authority), never silently ignored.
@Suite("Certificate pinning: trust anchors and wildcard hosts", .serialized)
struct CertificateChainPinningTests {
    private static let wrong = CertificatePinning.Pin.spki(Data(repeating: 7, count: 32).base64EncodedString())

    /// Trusting `authorities`, pinning with `pinning`, sends `GET /ok` to a TLS fault server that
    /// presents `leaf`, at `host` (`127.0.0.1` or `localhost`).
    private func send(
        to leaf: TestCertificate, host: String = "127.0.0.1", trusting authorities: [TestCertificateAuthority],
        pinning: CertificatePinning
    ) async throws -> (Result<Data, any Error>, requestsReceived: Int) {
        let server = try await FaultServer.start(tls: .init(leaf))
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(authorities.map(\.certificate))
        configuration.tlsConfiguration = tls
        let transport = PinningAsyncHTTPClientTransport(pinning: pinning, configuration: configuration)
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://\(host):\(server.port)")!, timeout: .seconds(30)),
                               transport: transport)
        let result: Result<Data, any Error>
        do { result = .success(try await client.send(Request<Data>(path: "/ok"))) } catch { result = .failure(error) }
        try await transport.shutdown()
        let count = server.requestCount
        await server.stop()
        return (result, count)
    }

    /// The pinning error inside a failed result, if that is what it is.
    private func pinningError(_ result: Result<Data, any Error>) -> CertificatePinningError? {
        guard case .failure(let error) = result, let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError,
              let transportError = underlying as? TransportError, transportError.kind == .tls else { return nil }
        return transportError.underlying as? CertificatePinningError
    }

    @Test("a pin of the trust anchor's key (or certificate) passes")
    func anchorPinPasses() async throws {
        let authority = try TestCertificateAuthority()
        let anchorKey = try CertificatePinning.Pin.spki(of: authority.certificate)
        let anchorCertificate = try CertificatePinning.Pin.certificate(of: authority.certificate)
        for pin in [anchorKey, anchorCertificate] {
            let (result, count) = try await send(to: authority.validLeaf(), trusting: [authority],
                                                 pinning: CertificatePinning(pins: ["127.0.0.1": [Self.wrong, pin]]))
            #expect(try result.get().count == 11)
            #expect(count == 1)
        }
    }

    @Test("a pin of another trusted authority fails the handshake as a pinning error; nothing is sent")
    func otherAnchorFails() async throws {
        let issuer = try TestCertificateAuthority(commonName: "Issuer CA")
        let other = try TestCertificateAuthority(commonName: "Other CA")
        let (result, count) = try await send(to: issuer.validLeaf(), trusting: [issuer, other],
                                             pinning: CertificatePinning(pins: ["127.0.0.1": [try .spki(of: other.certificate)]]))
        let error = try #require(pinningError(result), "expected a pinning error, got \(result)")
        #expect("\(error)".contains("127.0.0.1"))
        #expect(count == 0)
    }

    @Test("a wildcard host key is enforced: a wrong pin under '**.localhost' fails, the right one passes")
    func wildcardEnforced() async throws {
        let authority = try TestCertificateAuthority()
        let leaf = try authority.validLeaf()
        let (refused, refusedCount) = try await send(to: leaf, host: "localhost", trusting: [authority],
                                                     pinning: CertificatePinning(pins: ["**.localhost": [Self.wrong]]))
        #expect(pinningError(refused)?.received == .spki(leaf.spkiPin), "\(refused)")
        #expect(refusedCount == 0)
        let (passed, _) = try await send(to: leaf, host: "localhost", trusting: [authority],
                                         pinning: CertificatePinning(pins: ["**.LOCALHOST.": [.spki(leaf.spkiPin)]]))
        #expect(try passed.get().count == 11)
    }

    @Test("an invalid wildcard key refuses every request instead of pinning nothing")
    func invalidPatternRefused() async throws {
        let authority = try TestCertificateAuthority()
        let pinning = CertificatePinning(pins: ["api.*.com": [Self.wrong], "127.0.0.1": [try .spki(of: authority.certificate)]])
        #expect(pinning.invalidPatterns == ["api.*.com"])
        let (result, count) = try await send(to: authority.validLeaf(), trusting: [authority], pinning: pinning)
        #expect(pinningError(result).map { "\($0)".contains("api.*.com") } == true, "\(result)")
        #expect(count == 0)
    }

    @Test("keys that are URLs or host:port, pins that are no base64 SHA-256, and URL-shaped exclusions are refused rather than pinning nothing")
    func malformedEntriesRefused() {
        for bad in ["https://api.example.com", "api.example.com:443", "api.example.com/v1", "user@api.example.com", "api example.com", "[::1]", "bücher.example"] {
            #expect(CertificatePinning(pins: [bad: [Self.wrong]]).invalidPatterns == [bad.lowercased()], "\(bad)")
        }
        #expect(CertificatePinning(pins: ["api.example.com": [Self.wrong, .spki("<the backup key's pin>")]]).invalidPatterns == ["api.example.com"])
        #expect(CertificatePinning(pins: ["api.example.com": [.spki("AAAA")]]).invalidPatterns == ["api.example.com"])
        #expect(CertificatePinning(pins: ["api.example.com": [Self.wrong]], excludedHosts: ["https://api.example.com/about"]).invalidPatterns
            == ["https://api.example.com/about"])
        #expect(CertificatePinning(pins: ["api.example.com": [Self.wrong], "::1": [Self.wrong], "127.0.0.1": [Self.wrong], "*.cdn.example.com": [Self.wrong],
                                          "xn--bcher-kva.example": [Self.wrong], "API.Example.COM.": [Self.wrong]],
                                   excludedHosts: ["other.example.com"]).invalidPatterns.isEmpty)
    }

    @Test("wildcards follow OkHttp: '*.' is one label, '**.' any number, never an IP address")
    func wildcardRules() {
        let pin = CertificatePinning.Pin.spki("AAAA")
        let one = CertificatePinning(pins: ["*.Example.com": [pin]])
        #expect(one.pins(for: "api.example.com") == [pin])
        #expect(one.pins(for: "API.EXAMPLE.COM.") == [pin])
        #expect(one.pins(for: "example.com") == nil)
        #expect(one.pins(for: "a.b.example.com") == nil)
        #expect(one.pins(for: "evilexample.com") == nil)
        let any = CertificatePinning(pins: ["**.example.com": [pin], "api.example.com": [Self.wrong]])
        #expect(any.pins(for: "example.com") == [pin])
        #expect(any.pins(for: "a.b.example.com") == [pin])
        #expect(Set(any.pins(for: "api.example.com") ?? []) == [pin, Self.wrong])
        #expect(any.pins(for: "example.org") == nil)
        #expect(CertificatePinning(pins: ["*.0.0.1": [pin]]).pins(for: "127.0.0.1") == nil)
        #expect(CertificatePinning(pins: ["*.example.com": [pin]], excludedHosts: ["cdn.example.com"]).pins(for: "cdn.example.com") == nil)
        for bad in ["*", "*.", "**", "a.*.com", "*example.com", "*.*.example.com", "x.**.com"] {
            #expect(CertificatePinning(pins: [bad: [pin]]).invalidPatterns.count == 1, "\(bad)")
        }
    }
}
