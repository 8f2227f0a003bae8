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

    /// The client named `name` (`ahc.raw`, `ahc.courier`, `urlsession.raw`, `urlsession.courier`).
    init(name: String, baseURL: URL) throws {
        let largeURL = baseURL.absoluteString + Fixtures.largePath
        switch name {
        case "ahc.raw", "ahc.courier":
            let ahc = AHCScenarios(baseURL: baseURL)
            let scenario = ahc.scenarios(baseURL: baseURL).first { $0.key == name }!
            users = scenario.perform
            shutdown = { try await ahc.shutdown() }
            if name == "ahc.raw" {
                large = {
                    let response = try await ahc.raw.execute(HTTPClientRequest(url: largeURL), timeout: .seconds(60))
                    return try await response.body.collect(upTo: 50 * 1024 * 1024).readableBytes
                }
            } else {
                large = { try await ahc.client.send(LargeBody()).count }
            }
        case "urlsession.raw", "urlsession.courier":
            let sessions = URLSessionScenarios(baseURL: baseURL)
            let scenario = sessions.scenarios(baseURL: baseURL).first { $0.key == name }!
            users = scenario.perform
            shutdown = { sessions.shutdown() }
            if name == "urlsession.raw" {
                let url = URL(string: largeURL)!
                large = { try await sessions.session.data(for: URLRequest(url: url)).0.count }
            } else {
                large = { try await sessions.client.send(LargeBody()).count }
            }
        default:
            throw OptionsError("unknown probe client \(name)")
        }
    }
}
