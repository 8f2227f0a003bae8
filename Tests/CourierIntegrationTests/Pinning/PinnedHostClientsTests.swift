import AsyncHTTPClient
import Courier
@testable import CourierAsyncHTTPClient
import Foundation
import Testing

/// The per-host `HTTPClient`s of ``PinningAsyncHTTPClientTransport`` stay bounded: a wildcard pin
/// and a server that redirects to ever new subdomains must not open a client (and its pooled
/// connections) per name for the life of the transport.
@Suite("Pinned host clients are bounded")
struct PinnedHostClientsTests {
    private let pins: [CertificatePinning.Pin] = [.spki("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")]

    private func transport() -> PinningAsyncHTTPClientTransport {
        PinningAsyncHTTPClientTransport(pinning: CertificatePinning(pins: ["**.example.test": pins]))
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("hundreds of pinned hosts, one after another, keep at most maxPinnedHostClients clients; the ones let go are shut down")
    func bounded() async throws {
        let transport = transport()
        let limit = PinningAsyncHTTPClientTransport.maxPinnedHostClients
        for index in 0..<300 {
            let host = "h\(index).example.test"
            let entry = transport.checkOut(host: host, pins: pins)
            transport.checkIn(host: host, entry)
            #expect(transport.pinnedHostClientCounts.kept <= limit)
        }
        #expect(transport.pinnedHostClientCounts.kept == limit)
        try await waitUntil { transport.pinnedHostClientCounts.retiring == 0 }
        #expect(transport.pinnedHostClientCounts.retiring == 0)
        try await transport.shutdown()
        #expect(transport.pinnedHostClientCounts == (0, 0))
    }

    @Test("a client that carries a request is never let go, and a recently used one is kept over older ones")
    func busyAndRecentAreKept() async throws {
        let transport = transport()
        let busy = transport.checkOut(host: "busy.example.test", pins: pins)
        let recent = transport.checkOut(host: "recent.example.test", pins: pins)
        transport.checkIn(host: "recent.example.test", recent)
        for index in 0..<200 {
            let host = "h\(index).example.test"
            transport.checkIn(host: host, transport.checkOut(host: host, pins: pins))
            if index % 10 == 0 {
                // Used again now and then: the least recently used are the others.
                transport.checkIn(host: "recent.example.test", transport.checkOut(host: "recent.example.test", pins: pins))
            }
        }
        #expect(transport.checkOut(host: "busy.example.test", pins: pins) === busy)
        #expect(transport.checkOut(host: "recent.example.test", pins: pins) === recent)
        transport.checkIn(host: "busy.example.test", busy)
        transport.checkIn(host: "busy.example.test", busy)
        transport.checkIn(host: "recent.example.test", recent)
        try await transport.shutdown()
        #expect(transport.pinnedHostClientCounts == (0, 0))
    }
}
