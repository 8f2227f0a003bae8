import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import CourierURLSession
import Foundation
import HTTPTypes
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Transport configurations that would take decisions out of Courier's hands are refused or
/// made safe: an `HTTPClient` that follows redirects itself, a cookie storage shared between
/// clients, a session that waits for a credential nobody gives.
@Suite("Transport configurations keep Courier in charge")
struct TransportConfigurationTests {
    @Test("an HTTPClient that follows redirects itself is refused before anything is sent")
    func redirectingHTTPClient() async throws {
        try await withTestServer { (origin: TestServer) async throws in
            try await withTestServer { (other: TestServer) async throws in
                let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)   // AsyncHTTPClient's defaults: follows redirects
                defer { _ = httpClient.shutdown() }
                let client = APIClient(configuration: APIConfiguration(baseURL: origin.baseURL),
                                       transport: AsyncHTTPClientTransport(client: httpClient),
                                       middleware: [AuthenticationMiddleware(.bearer("secret"))])
                await #expect {
                    try await client.send(Request<Echo>(path: "/redirect-to", query: [.init(name: "url", value: other.url("/headers").absoluteString)]))
                } throws: { error in
                    guard let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError, let transport = underlying as? TransportError else { return false }
                    return transport.kind == .invalidRequest && transport.message.contains("follows redirects")
                }
                #expect(origin.requestCount == 0)
                #expect(other.requestCount == 0)
            }
        }
    }

    @Test("an HTTPClient with the recommended configuration works, and Courier follows the redirect")
    func recommendedHTTPClient() async throws {
        try await withTestServer { (origin: TestServer) async throws in
            try await withTestServer { (other: TestServer) async throws in
                let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.recommendedConfiguration())
                defer { _ = httpClient.shutdown() }
                let client = APIClient(configuration: APIConfiguration(baseURL: origin.baseURL), transport: AsyncHTTPClientTransport(client: httpClient),
                                       middleware: [AuthenticationMiddleware(.bearer("secret"))])
                let echo = try await client.send(Request<Echo>(path: "/redirect-to", query: [.init(name: "url", value: other.url("/headers").absoluteString)]))
                #expect(echo.headers["authorization"] == nil)
                #expect(other.requestCount == 1)
            }
        }
    }

    @Test("two URLSession transports never share cookies; sharing the process storage is explicit")
    func cookiesIsolated() async throws {
        try await withTestServer { (server: TestServer) async throws in
            let tenantA = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: URLSessionTransport())
            let tenantB = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: URLSessionTransport())
            _ = try await tenantA.send(Request<Data>(path: "/cookies/set", query: [.init(name: "name", value: "session"), .init(name: "value", value: "tenant-a")]))
            #expect(try await tenantA.send(Request<CookieEcho>(path: "/cookies")).cookie == "session=tenant-a")
            #expect(try await tenantB.send(Request<CookieEcho>(path: "/cookies")).cookie == "")

            let sharedA = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                    transport: URLSessionTransport(configuration: URLSessionTransport.defaultConfiguration(sharingCookies: true)))
            let sharedB = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                    transport: URLSessionTransport(configuration: URLSessionTransport.defaultConfiguration(sharingCookies: true)))
            _ = try await sharedA.send(Request<Data>(path: "/cookies/set", query: [.init(name: "name", value: "shared"), .init(name: "value", value: "1")]))
            #expect(try await sharedB.send(Request<CookieEcho>(path: "/cookies")).cookie.contains("shared=1"))
            HTTPCookieStorage.shared.cookies?.filter { $0.name == "shared" }.forEach(HTTPCookieStorage.shared.deleteCookie)
        }
    }

    @Test("a 401 with an HTTP authentication challenge comes back at once, with its body", arguments: TransportKind.allCases, ["basic", "digest", "bearer"])
    func authenticationChallenge(_ kind: TransportKind, scheme: String) async throws {
        try await withTestServer { (server: TestServer) async throws in
            // A transport that waited for credentials would wait for the 300 s deadline; the
            // hang guard below is far from both (a loaded CI machine can stall a test for 20 s).
            let client = kind.client(for: server) { $0.timeout = .seconds(300) }
            let start = ContinuousClock.now
            await #expect {
                try await client.send(Request<Data>(path: "/auth/challenge/\(scheme)"))
            } throws: { error in
                guard let apiError = error as? APIError, apiError.kind == .httpError, let status = apiError.statusCode, case let message = apiError.message, let response = apiError.response else { return false }
                return status == 401 && message == "credentials required" && response.headerFields[.wwwAuthenticate] != nil
            }
            #expect(start.duration(to: .now) < .seconds(90), "a hang guard: the request must not wait for its deadline")
        }
    }
}

/// What `/cookies` answers.
struct CookieEcho: Decodable, Sendable {
    var cookie: String
}

@Suite("AsyncHTTPClient's own tracing")
struct AsyncHTTPClientTracingTests {
    @Test("Courier's transport turns AsyncHTTPClient's tracer off: one span per request, Courier's, with the query redacted")
    func ownTracerIsOff() async throws {
        #expect(AsyncHTTPClientTransport.recommendedConfiguration().tracing.tracer == nil)
        let transport = AsyncHTTPClientTransport()
        #expect(transport.client.tracer == nil)
    }
}
