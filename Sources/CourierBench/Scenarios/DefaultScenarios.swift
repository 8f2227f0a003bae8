import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Default against default: what a user compares when they weigh Courier against the code they
/// would write by hand, each side as it comes out of the box.
///
/// - `ahc.default.raw`: `HTTPClient.shared` (AsyncHTTPClient's own defaults: redirects followed,
///   no decompression, its tracer on) + `execute` + `collect` + `JSONDecoder`;
///   `ahc.default.courier`: `APIClient(…, transport: AsyncHTTPClientTransport())` + `send`,
///   over Courier's process-wide client and its recommended configuration.
/// - `urlsession.default.raw`: `URLSession.shared.data(for:)` + `JSONDecoder`, measured against
///   `urlsession.courier` (Courier over `URLSessionTransport()`, its default configuration).
///
/// Neither shared client is shut down: both live as long as the process, as in an application.
struct DefaultScenarios {
    /// Courier over `AsyncHTTPClientTransport()`, no middleware.
    let ahcClient: APIClient

    /// Creates Courier's default client for `baseURL`.
    init(baseURL: URL) {
        ahcClient = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: AsyncHTTPClientTransport())
    }

    /// `ahc.default.raw`, `ahc.default.courier` and `urlsession.default.raw`.
    func scenarios(baseURL: URL) -> [Scenario] {
        let client = ahcClient
        let ahcRequest = HTTPClientRequest(url: baseURL.absoluteString + Fixtures.usersPath)
        let urlRequest = URLRequest(url: baseURL.appendingPathComponent(String(Fixtures.usersPath.dropFirst())))
        let decoder = JSONDecoder()
        return [
            Scenario(key: "ahc.default.raw", label: "HTTPClient.shared (raw, defaults)", family: "defaults") {
                try await AHCScenarios.rawUsers(HTTPClient.shared, request: ahcRequest, decoder: decoder).check()
            },
            Scenario(key: "ahc.default.courier", label: "Courier, AsyncHTTPClientTransport() (defaults)", family: "defaults") {
                try await client.send(ListUsers()).check()
            },
            Scenario(key: "urlsession.default.raw", label: "URLSession.shared (raw, defaults)", family: "defaults") {
                try await URLSessionScenarios.rawUsers(URLSession.shared, request: urlRequest, decoder: decoder).check()
            },
        ]
    }
}
