import AsyncHTTPClient
import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One client, by scenario key, as the memory probes use it: the small JSON request and the
/// 1 MiB body, the way an application would fetch each.
struct ProbeClients: Sendable {
    /// Sends the users request.
    let users: @Sendable () async throws -> Void
    /// Fetches the 1 MiB body and returns its size.
    let large: @Sendable () async throws -> Int
    /// Releases the client.
    let shutdown: @Sendable () async throws -> Void

    /// The client named `name` (one of ``MemoryProbe/clients``).
    init(name: String, baseURL: URL) throws {
        let largeURL = baseURL.absoluteString + Fixtures.largePath
        switch name {
        case "ahc.raw", "ahc.courier":
            let ahc = AHCScenarios(baseURL: baseURL)
            users = try Self.scenario(name, in: ahc.scenarios(baseURL: baseURL))
            shutdown = { try await ahc.shutdown() }
            if name == "ahc.raw" {
                large = { try await Self.rawLarge(ahc.raw, url: largeURL) }
            } else {
                large = { try await ahc.client.send(LargeBody()).count }
            }
        case "urlsession.raw", "urlsession.courier":
            let sessions = URLSessionScenarios(baseURL: baseURL)
            users = try Self.scenario(name, in: sessions.scenarios(baseURL: baseURL))
            shutdown = { sessions.shutdown() }
            if name == "urlsession.raw" {
                let url = URL(string: largeURL)!
                large = { try await sessions.session.data(for: URLRequest(url: url)).0.count }
            } else {
                large = { try await sessions.client.send(LargeBody()).count }
            }
        case "ahc.default.raw", "ahc.default.courier", "urlsession.default.raw":
            let defaults = DefaultScenarios(baseURL: baseURL)
            users = try Self.scenario(name, in: defaults.scenarios(baseURL: baseURL))
            shutdown = {}
            switch name {
            case "ahc.default.raw":
                large = { try await Self.rawLarge(HTTPClient.shared, url: largeURL) }
            case "ahc.default.courier":
                large = { try await defaults.ahcClient.send(LargeBody()).count }
            default:
                let url = URL(string: largeURL)!
                large = { try await URLSession.shared.data(for: URLRequest(url: url)).0.count }
            }
        default:
            throw OptionsError("unknown probe client \(name)")
        }
    }

    private static func scenario(_ key: String, in scenarios: [Scenario]) throws -> @Sendable () async throws -> Void {
        guard let scenario = scenarios.first(where: { $0.key == key }) else { throw OptionsError("no scenario \(key)") }
        return scenario.perform
    }

    private static func rawLarge(_ client: HTTPClient, url: String) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        return try await response.body.collect(upTo: 50 * 1024 * 1024).readableBytes
    }
}
