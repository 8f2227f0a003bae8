import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// Credentials, default headers, base parameters and the user's languages go only to the base
/// URL's origin: a request whose path is an absolute URL elsewhere (a pre-signed link) gets none
/// of them unless it opts in.
@Suite("Credentials stay with the base URL's origin")
struct CredentialScopeTests {
    private static let apiKey = HTTPField.Name("X-Api-Key")!

    private func client(_ kind: TransportKind, _ server: TestServer, middleware: [any Middleware]) -> APIClient {
        var configuration = APIConfiguration(baseURL: server.baseURL)
        configuration.defaultHeaders[Self.apiKey] = "default-key"
        configuration.baseParameters = [URLQueryItem(name: "app_token", value: "base-secret")]
        return APIClient(configuration: configuration, transport: kind.makeTransport(), middleware: middleware)
    }

    private static let middleware: [any Middleware] = [
        AuthenticationMiddleware(.bearer("bearer-secret")),
        BaseParametersMiddleware([URLQueryItem(name: "device", value: "d-1")]),
    ]

    @Test("an absolute URL on another origin gets no default headers, base parameters or middleware credentials", arguments: TransportKind.allCases)
    func otherOrigin(_ kind: TransportKind) async throws {
        try await withTestServer { (api: TestServer) async throws in
            try await withTestServer { (storage: TestServer) async throws in
                let client = client(kind, api, middleware: Self.middleware)
                let echo = try await client.send(Request<Echo>(path: storage.url("/echo/upload?X-Amz-Signature=abc").absoluteString))
                #expect(echo.headers["authorization"] == nil)
                #expect(echo.headers["x-api-key"] == nil)
                #expect(echo.query == "X-Amz-Signature=abc")
                #expect(echo.headers["user-agent"]?.hasPrefix("Courier/") == true)
                #expect(api.requestCount == 0)
            }
        }
    }

    @Test("the base URL's origin, relative or absolute, gets all of them", arguments: TransportKind.allCases)
    func baseOrigin(_ kind: TransportKind) async throws {
        try await withTestServer { (api: TestServer) async throws in
            let client = client(kind, api, middleware: Self.middleware)
            for path in ["/echo", api.url("/echo").absoluteString] {
                let echo = try await client.send(Request<Echo>(path: path))
                #expect(echo.headers["authorization"] == "Bearer bearer-secret")
                #expect(echo.headers["x-api-key"] == "default-key")
                #expect(echo.query?.contains("app_token=base-secret") == true)
                #expect(echo.query?.contains("device=d-1") == true)
            }
        }
    }

    @Test("a request that opts in sends them to the other origin", arguments: TransportKind.allCases)
    func optIn(_ kind: TransportKind) async throws {
        try await withTestServer { (api: TestServer) async throws in
            try await withTestServer { (partner: TestServer) async throws in
                let client = client(kind, api, middleware: Self.middleware)
                var options = RequestOptions()
                options.sendsCredentialsToOtherOrigins = true
                let echo = try await client.send(Request<Echo>(path: partner.url("/echo").absoluteString, options: options))
                #expect(echo.headers["authorization"] == "Bearer bearer-secret")
                #expect(echo.headers["x-api-key"] == "default-key")
                #expect(echo.query?.contains("app_token=base-secret") == true)
                #expect(echo.query?.contains("device=d-1") == true)
            }
        }
    }

    @Test("Accept-Language is sent only when the configuration asks for it", arguments: TransportKind.allCases)
    func acceptLanguage(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let plain = kind.client(for: server)
            // Absent, or empty where the platform adds its own (FoundationNetworking, CFNetwork).
            #expect((try await plain.send(Request<Echo>(path: "/echo")).headers["accept-language"] ?? "").isEmpty)
            let asking = kind.client(for: server) { $0.sendsPreferredLanguages = true }
            let languages = Locale.preferredLanguages
            let sent = try await asking.send(Request<Echo>(path: "/echo")).headers["accept-language"]
            if let first = languages.first { #expect(sent?.hasPrefix(first) == true) } else { #expect(sent == nil) }
        }
    }
}
