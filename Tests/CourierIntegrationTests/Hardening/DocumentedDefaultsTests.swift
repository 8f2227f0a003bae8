import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierURLSession
import Foundation
import NIOCore
import Testing

/// The default values the README and the DocC articles state, read from the code: a change of
/// one fails here and sends whoever made it to the docs.
@Suite("The defaults the documentation states")
struct DocumentedDefaultsTests {
    @Test("APIConfiguration: 60 s timeout, 50 MiB response limit")
    func clientDefaults() {
        let configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        #expect(configuration.timeout == .seconds(60))
        #expect(configuration.maxResponseSize == 50 * 1024 * 1024)
    }

    @Test("URLSessionTransport: request bodies from memory up to 4 MiB")
    func urlSessionDefaults() {
        #expect(URLSessionTransport().maxRequestBodySize == 4 * 1024 * 1024)
    }

    @Test("AsyncHTTPClient's recommended configuration: connect 10 s, read 30 s, no decompression of its own")
    func asyncHTTPClientDefaults() {
        let configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        #expect(configuration.timeout.connect == .seconds(10))
        #expect(configuration.timeout.read == .seconds(30))
        guard case .disabled = configuration.decompression else {
            Issue.record("the recommended configuration decompresses: \(configuration.decompression)")
            return
        }
    }

    @Test("PinningAsyncHTTPClientTransport keeps at most 32 pinned-host clients")
    func pinningDefaults() async throws {
        let transport = PinningAsyncHTTPClientTransport(pinning: CertificatePinning(pins: ["api.example.com": [.spki(OpenSSLKnownAnswer.spkiPin)]]))
        #expect(transport.maxPinnedHostClients == 32)
        try await transport.shutdown()
    }

    @Test("TokenRefresher: a load or refresh may take 15 s")
    func refresherDefaults() {
        let refresher = TokenRefresher(provider: ClosureTokenProvider(token: { "t" }, refresh: { _ in "t" }))
        #expect(refresher.refreshTimeout == .seconds(15))
    }

    @Test("MemoryCacheStore: 10 MiB and 1,000 entries")
    func memoryCacheDefaults() {
        let store = MemoryCacheStore()
        #expect(store.maxBytes == 10 * 1024 * 1024)
        #expect(store.maxEntries == 1_000)
    }
}
