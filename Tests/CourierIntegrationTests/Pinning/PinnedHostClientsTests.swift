import AsyncHTTPClient
import Courier
@testable import CourierAsyncHTTPClient
import CourierTestServer
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
        let limit = transport.maxPinnedHostClients
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

    @Test("the limit is the transport's own: a larger one keeps more clients")
    func configurableLimit() async throws {
        let transport = PinningAsyncHTTPClientTransport(pinning: CertificatePinning(pins: ["**.example.test": pins]), maxPinnedHostClients: 40)
        for index in 0..<60 {
            let host = "h\(index).example.test"
            transport.checkIn(host: host, transport.checkOut(host: host, pins: pins))
        }
        #expect(transport.pinnedHostClientCounts.kept == 40)
        try await transport.shutdown()
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

    /// Whether `client` was shut down already (a second shutdown is refused).
    private func isShutDown(_ client: HTTPClient) async -> Bool {
        do {
            try await client.shutdown()
            return false
        } catch {
            return true
        }
    }

    @Test("after shutdown() every client, kept or let go, is shut down (or shutting down)")
    func shutdownWaitsForEveryClient() async throws {
        let transport = transport()
        var entries: [PinningAsyncHTTPClientTransport.PinnedClient] = []
        for index in 0..<40 {
            let host = "h\(index).example.test"
            let entry = transport.checkOut(host: host, pins: pins)
            transport.checkIn(host: host, entry)
            entries.append(entry)
        }
        try await transport.shutdown()
        for entry in entries { #expect(await isShutDown(entry.client)) }
    }

    @Test("clients past the limit that were all busy are let go as their requests end")
    func letGoWhenRequestsEnd() async throws {
        let transport = transport()
        let limit = transport.maxPinnedHostClients
        let hosts = (0..<(limit + 8)).map { "h\($0).example.test" }
        let entries = hosts.map { transport.checkOut(host: $0, pins: pins) }
        #expect(transport.pinnedHostClientCounts.kept == limit + 8)   // all busy: none may go
        for (host, entry) in zip(hosts, entries) { transport.checkIn(host: host, entry) }
        #expect(transport.pinnedHostClientCounts.kept == limit)
        try await transport.shutdown()
    }

    @Test("a request that ends after shutdown() does not count against the client made since for its host")
    func staleCheckIn() async throws {
        let transport = transport()
        let old = transport.checkOut(host: "a.example.test", pins: pins)
        try await transport.shutdown()
        let current = transport.checkOut(host: "a.example.test", pins: pins)
        transport.checkIn(host: "a.example.test", old)   // the old request ends now
        for index in 0..<100 {
            let host = "h\(index).example.test"
            transport.checkIn(host: host, transport.checkOut(host: host, pins: pins))
        }
        // `current` still carries its request: it is kept.
        #expect(transport.checkOut(host: "a.example.test", pins: pins) === current)
        try? await transport.shutdown()   // the shared unpinned client refuses a second shutdown
    }

    @Test("a response body still streaming keeps its client: other pinned hosts cannot shut it down under the reader")
    func streamingBodyKeepsItsClient() async throws {
        let wildcard = pins
        try await PinnedTestServer.run(pinning: { leaf in
            CertificatePinning(pins: ["127.0.0.1": [.spki(leaf.spkiPin)], "**.example.test": wildcard])
        }) { transport, client, _, _ in
            let streamed = try await client.stream(for: Request<Data>(path: "/drip", query: [.init(name: "ms", value: "10"), .init(name: "bytes", value: "60")]))
            // While the body drips in, requests to more pinned hosts than the limit come and go.
            for index in 0..<(transport.maxPinnedHostClients + 8) {
                let host = "h\(index).example.test"
                transport.checkIn(host: host, transport.checkOut(host: host, pins: wildcard))
            }
            var received = 0
            for try await chunk in try #require(streamed.body) { received += chunk.count }
            #expect(received == 60)
            // Once the body is read and released, a later request finds the client free.
            #expect(try await client.send(Request<Data>(path: "/ok")).count == 11)
        }
    }
}
