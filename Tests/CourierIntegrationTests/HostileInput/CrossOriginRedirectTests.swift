import Courier
import CourierSigning
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// One list of secret headers drives redaction and redirect stripping; a signed or
/// authenticated body is never replayed to another origin by a 307/308.
@Suite("Secrets on cross-origin redirects")
struct CrossOriginRedirectTests {
    private static func redirect(to target: URL, status: Int) -> [URLQueryItem] {
        [.init(name: "url", value: target.absoluteString), .init(name: "status", value: String(status))]
    }

    /// A client for `origin` with one middleware.
    private static func client(_ kind: TransportKind, _ origin: TestServer, _ middleware: any Middleware) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: origin.baseURL), transport: kind.makeTransport(), middleware: [middleware])
    }

    private static let signing = SigningMiddleware(.hmacSHA256(HMACRequestSignature(secret: Data("s3cret".utf8), keyID: "k1")))

    /// Whether `error` is the refusal to resend a body to another origin.
    private static func isBodyRedirectRefusal(_ error: any Error) -> Bool {
        guard let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError, let redirect = underlying as? RedirectError else { return false }
        return redirect.reason.contains("allowsCrossOriginBodyRedirects")
    }

    @Test("API-key, token and signature headers, and names the client adds, are dropped at another origin", arguments: TransportKind.allCases)
    func customCredentialHeaders(_ kind: TransportKind) async throws {
        try await withTestServer { (origin: TestServer) async throws in
            try await withTestServer { (other: TestServer) async throws in
                let client = kind.client(for: origin) { configuration in
                    configuration.defaultHeaders[HTTPField.Name("X-Api-Key")!] = "k-default"
                    configuration.sensitiveHeaders = [HTTPField.Name("X-Partner-Id")!]
                }
                let headers: RequestHeaders = [
                    HTTPField.Name("X-Auth-Token")!: "t-1", HTTPField.Name("X-Amz-Security-Token")!: "s-1",
                    HTTPField.Name("X-Signature")!: "sig", HTTPField.Name("Ocp-Apim-Subscription-Key")!: "az",
                    HTTPField.Name("X-Partner-Id")!: "p-1", HTTPField.Name("X-Request-Id")!: "r-1",
                ]
                let echo = try await client.send(Request<Echo>(path: "/redirect-to", query: Self.redirect(to: other.url("/headers"), status: 302), headers: headers))
                #expect(echo.headers["host"]?.hasSuffix(":\(other.port)") == true)
                for name in ["x-api-key", "x-auth-token", "x-amz-security-token", "x-signature", "ocp-apim-subscription-key", "x-partner-id"] {
                    #expect(echo.headers[name] == nil, "\(name) crossed the origin")
                }
                #expect(echo.headers["x-request-id"] == "r-1")
            }
        }
    }

    @Test("a signed POST answered 307/308 to another origin is refused; nothing reaches that origin", arguments: TransportKind.allCases)
    func signedBodyNotReplayed(_ kind: TransportKind) async throws {
        try await withTestServer { (origin: TestServer) async throws in
            try await withTestServer { (other: TestServer) async throws in
                let client = Self.client(kind, origin, Self.signing)
                for status in [307, 308] {
                    await #expect {
                        try await client.send(Request<Echo>(method: .post, path: "/redirect-to", query: Self.redirect(to: other.url("/echo"), status: status),
                                                            body: .json(["amount": 100])))
                    } throws: { Self.isBodyRedirectRefusal($0) }
                }
                #expect(other.requestCount == 0)
            }
        }
    }

    @Test("an authenticated POST answered 307 to another origin is refused", arguments: TransportKind.allCases)
    func authenticatedBodyNotReplayed(_ kind: TransportKind) async throws {
        try await withTestServer { (origin: TestServer) async throws in
            try await withTestServer { (other: TestServer) async throws in
                let client = Self.client(kind, origin, AuthenticationMiddleware(.bearer("secret")))
                await #expect {
                    try await client.send(Request<Echo>(method: .post, path: "/redirect-to", query: Self.redirect(to: other.url("/echo"), status: 307),
                                                        body: .json(["a": 1])))
                } throws: { Self.isBodyRedirectRefusal($0) }
                #expect(other.requestCount == 0)
            }
        }
    }

    @Test("with the policy's permission the body goes, without the signature headers", arguments: TransportKind.allCases)
    func allowedExplicitly(_ kind: TransportKind) async throws {
        try await withTestServer { (origin: TestServer) async throws in
            try await withTestServer { (other: TestServer) async throws in
                var configuration = APIConfiguration(baseURL: origin.baseURL)
                configuration.redirectPolicy.allowsCrossOriginBodyRedirects = true
                let client = APIClient(configuration: configuration, transport: kind.makeTransport(),
                                       middleware: [Self.signing])
                let echo = try await client.send(Request<Echo>(method: .post, path: "/redirect-to", query: Self.redirect(to: other.url("/echo"), status: 307),
                                                               body: .json(["amount": 100])))
                #expect(echo.method == "POST")
                #expect(echo.body == #"{"amount":100}"#)
                for name in ["x-signature", "x-timestamp", "x-key-id"] { #expect(echo.headers[name] == nil, "\(name) crossed the origin") }
            }
        }
    }

    @Test("a signed POST redirected 307 on the same origin keeps its body and signature", arguments: TransportKind.allCases)
    func sameOriginKept(_ kind: TransportKind) async throws {
        try await withTestServer { (origin: TestServer) async throws in
            let client = Self.client(kind, origin, Self.signing)
            let echo = try await client.send(Request<Echo>(method: .post, path: "/redirect-to", query: [.init(name: "url", value: "/echo"), .init(name: "status", value: "307")],
                                                           body: .json(["amount": 100])))
            #expect(echo.body == #"{"amount":100}"#)
            #expect(echo.headers["x-signature"] != nil)
        }
    }
}
