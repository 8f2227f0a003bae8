import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import CourierURLSession
import Foundation
import NIOSSL
import Testing

/// The fault server over TLS, with certificates generated in the test: faults under TLS are
/// still typed errors, and a certificate the client must refuse is refused before any request
/// byte reaches the server.
// Serialized, as the pinning suites are: a refused certificate makes AsyncHTTPClient retry the
// handshake until the request's deadline (9–13 handshakes in 2 s), on the event loops every
// AsyncHTTPClient test shares; run side by side in a debug build (BoringSSL unoptimized), these
// storms held other TLS requests past their 10 s deadline on a loaded run.
@Suite("Fault injection over TLS", .serialized)
struct TLSFaultTests {
    /// Which certificate the server presents.
    enum Leaf: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case valid, expired, wrongHost, selfSigned
        var testDescription: String { rawValue }

        func make(from authority: TestCertificateAuthority) throws -> TestCertificate {
            switch self {
            case .valid: return try authority.validLeaf()
            case .expired: return try authority.expiredLeaf()
            case .wrongHost: return try authority.wrongHostLeaf()
            case .selfSigned: return try TestCertificate.selfSigned()
            }
        }
    }

    /// Courier's recommended AsyncHTTPClient configuration, trusting only `authority`.
    private static func configuration(trusting authority: TestCertificateAuthority) -> HTTPClient.Configuration {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([authority.certificate])
        configuration.tlsConfiguration = tls
        return configuration
    }

    /// A fresh authority, an HTTPS fault server presenting `leaf`, and an AsyncHTTPClient-backed
    /// client trusting the authority; everything is stopped afterwards.
    private func withAsyncHTTPClient(
        _ leaf: Leaf, timeout: Duration = .seconds(30),
        _ body: (APIClient, FaultServer) async throws -> Void
    ) async throws {
        let authority = try TestCertificateAuthority()
        let server = try await FaultServer.start(tls: .init(try leaf.make(from: authority)))
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.configuration(trusting: authority))
        let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: timeout),
                               transport: AsyncHTTPClientTransport(client: httpClient))
        do {
            try await body(client, server)
        } catch {
            try? await httpClient.shutdown()
            await server.stop()
            throw error
        }
        try await httpClient.shutdown()
        await server.stop()
    }

    /// The transport error under an `APIError.network`, if that is what `error` is.
    private static func transportError(_ error: (any Error)?) -> TransportError? {
        guard let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError else { return nil }
        return underlying as? TransportError
    }

    // MARK: AsyncHTTPClient, trusting the generated authority

    @Test("a valid generated leaf: /ok succeeds over HTTPS")
    func ok() async throws {
        try await withAsyncHTTPClient(.valid) { (client: APIClient, server: FaultServer) async throws in
            #expect(server.baseURL.scheme == "https")
            #expect(try await client.send(Request<Data>(path: "/ok")).count == 11)
            #expect(server.requestCount == 1)
        }
    }

    @Test("a body cut short under TLS (no close_notify) is a connection-lost error, never a partial success")
    func truncated() async throws {
        try await withAsyncHTTPClient(.valid) { (client: APIClient, server: FaultServer) async throws in
            let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/truncate")) }
            #expect(Self.transportError(error)?.kind == .connectionLost, "got \(String(describing: error))")
            #expect(server.requestCount == 1)
        }
    }

    @Test("a connection reset mid-body under TLS is a connection-lost error")
    func reset() async throws {
        try await withAsyncHTTPClient(.valid) { (client: APIClient, server: FaultServer) async throws in
            let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/reset")) }
            #expect(Self.transportError(error)?.kind == .connectionLost, "got \(String(describing: error))")
        }
    }

    @Test("a certificate the client must refuse fails the handshake, and no request reaches the server",
          arguments: [Leaf.expired, .wrongHost, .selfSigned])
    func refused(_ leaf: Leaf) async throws {
        // AsyncHTTPClient's pool retries a failed handshake until the deadline, then reports the
        // last handshake error: a short timeout keeps the test short.
        try await withAsyncHTTPClient(leaf, timeout: .seconds(2)) { (client: APIClient, server: FaultServer) async throws in
            let elapsed = await ContinuousClock().measure {
                let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/ok")) }
                let transport = Self.transportError(error)
                // The cause is NIOSSL's: CERTIFICATE_VERIFY_FAILED (expired, untrusted issuer) or
                // failedToValidateHostname (wrong host).
                #expect(transport?.underlying is NIOSSLError || transport?.underlying is NIOSSLExtraError, "got \(String(describing: error))")
                #expect(transport?.kind == .tls)
                #expect(transport?.requestMayHaveBeenSent == false)
                print("TLS \(leaf.rawValue) leaf [asyncHTTPClient]: kind '\(transport?.kind.description ?? "-")', cause \(String(describing: transport?.underlying))")
            }
            print("TLS \(leaf.rawValue) leaf [asyncHTTPClient]: refused after \(elapsed), \(server.connectionCount) handshakes, \(server.requestCount) requests")
            #expect(server.requestCount == 0)
            #expect(elapsed < .seconds(90), "a hang guard, not a timing measurement (a loaded CI run took 8.7 s)")
        }
    }

    @Test("pinning: the generated leaf's SPKI pin passes; a leaf re-issued by the same trusted authority with a new key fails fast")
    func pinning() async throws {
        let authority = try TestCertificateAuthority()
        let pinned = try authority.validLeaf()
        let rotated = try authority.validLeaf()
        for (leaf, passes) in [(pinned, true), (rotated, false)] {
            let server = try await FaultServer.start(tls: .init(leaf))
            let transport = PinningAsyncHTTPClientTransport(pinning: CertificatePinning(pins: ["127.0.0.1": [.spki(pinned.spkiPin)]]),
                                                            configuration: Self.configuration(trusting: authority))
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(300)), transport: transport)
            if passes {
                do {
                    #expect(try await client.send(Request<Data>(path: "/ok")).count == 11)
                } catch {
                    Issue.record("the pinned leaf was refused: \(error)")
                }
                #expect(server.requestCount == 1)
            } else {
                let elapsed = await ContinuousClock().measure {
                    let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/ok")) }
                    let transportError = Self.transportError(error)
                    #expect(transportError?.kind == .tls)
                    #expect(transportError?.requestMayHaveBeenSent == false)
                    #expect((transportError?.underlying as? CertificatePinningError)?.received == .spki(rotated.spkiPin))
                }
                print("TLS pinning [asyncHTTPClient]: wrong pin refused after \(elapsed), \(server.requestCount) requests")
                #expect(server.requestCount == 0)
                #expect(elapsed < .seconds(90), "fails long before the 300 s deadline")
            }
            try await transport.shutdown()
            await server.stop()
        }
    }

    // MARK: URLSession (FoundationNetworking trusts the system roots only)

    @Test("URLSession refuses a certificate from an untrusted authority before sending a request",
          arguments: [Leaf.valid, .selfSigned])
    func urlSessionUntrusted(_ leaf: Leaf) async throws {
        let authority = try TestCertificateAuthority()
        let server = try await FaultServer.start(tls: .init(try leaf.make(from: authority)))
        let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(300)), transport: URLSessionTransport())
        let elapsed = await ContinuousClock().measure {
            let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/ok")) }
            let transport = Self.transportError(error)
            // FoundationNetworking reports libcurl's "SSL certificate problem: ..." as
            // URLError(.unknown) (-1); the transport recognises it as a TLS failure.
            #expect(transport?.kind == .tls, "got \(String(describing: error))")
            #expect(transport?.requestMayHaveBeenSent == false)
            let urlError = transport?.underlying as? URLError
            #expect(urlError?.localizedDescription.contains("SSL") == true, "got \(String(describing: error))")
            print("TLS \(leaf.rawValue) leaf [urlSession]: kind '\(transport?.kind.description ?? "-")', URLError \(urlError?.code.rawValue ?? 0): \(urlError?.localizedDescription ?? "-")")
        }
        #expect(server.requestCount == 0)
        #expect(elapsed < .seconds(90), "a hang guard, not a timing measurement (a loaded CI run took 8.7 s): the deadline is 300 s")
        await server.stop()
    }
}
