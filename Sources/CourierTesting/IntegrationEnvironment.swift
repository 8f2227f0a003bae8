import Foundation
#if canImport(Testing)
import Testing
#endif

/// The real API an integration test may talk to, read from the environment:
/// `API_BASE_URL` and `API_KEY`. Keys stay out of source control; a run without them (a fork's
/// CI, a laptop offline) skips the tests instead of failing them.
///
/// ```swift
/// @Test(.requiresIntegrationEnvironment)
/// func listsUsersForReal() async throws {
///     let env = try #require(IntegrationEnvironment.current)
///     let client = APIClient(configuration: APIConfiguration(baseURL: env.baseURL),
///                            transport: URLSessionTransport(),
///                            middleware: [AuthenticationMiddleware(.apiKey(env.apiKey, header: "X-API-Key"))])
///     #expect(try await client.send(ListUsers()).results.isEmpty == false)
/// }
/// ```
public struct IntegrationEnvironment: Sendable, Equatable {
    /// The environment variable with the base URL.
    public static let baseURLVariable = "API_BASE_URL"
    /// The environment variable with the API key.
    public static let apiKeyVariable = "API_KEY"

    /// The API's base URL.
    public var baseURL: URL
    /// The API key.
    public var apiKey: String

    /// Reads both variables from `environment`; `nil` when either is missing or empty, or the
    /// URL is not an http(s) URL.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let rawURL = environment[Self.baseURLVariable]?.trimmingCharacters(in: .whitespaces), !rawURL.isEmpty,
              let url = URL(string: rawURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil,
              let key = environment[Self.apiKeyVariable], !key.isEmpty
        else { return nil }
        self.baseURL = url
        self.apiKey = key
    }

    /// The environment of this process, when it has both variables.
    public static var current: IntegrationEnvironment? { IntegrationEnvironment() }

    /// Whether integration tests can run.
    public static var isAvailable: Bool { current != nil }
}

#if canImport(Testing)
extension Trait where Self == ConditionTrait {
    /// Runs the test only when `API_BASE_URL` and `API_KEY` are set; otherwise it is skipped
    /// with a message that says which variables to set.
    public static var requiresIntegrationEnvironment: Self {
        .enabled(
            if: IntegrationEnvironment.isAvailable,
            "set \(IntegrationEnvironment.baseURLVariable) and \(IntegrationEnvironment.apiKeyVariable) to run integration tests against a real API"
        )
    }
}
#endif
