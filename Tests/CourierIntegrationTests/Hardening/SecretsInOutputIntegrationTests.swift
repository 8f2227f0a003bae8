import Courier
import CourierTestServer
import CourierTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// Issue 12, items 8–10, over both transports against the real test server: what Courier
/// prints (error descriptions, log lines) and records (cassettes) holds no pre-signed URL
/// signature, no secret body field, and nothing a server sent that could forge a log line.
@Suite("Secrets and server text in errors, logs and cassettes")
struct SecretsInOutputIntegrationTests {
    /// Query items of S3 (SigV2, SigV4), GCS and Azure pre-signed URLs and of APIs that sign their parameters (`pub_sign`, `pub_ticket`).
    static let presigned: [URLQueryItem] = [
        .init(name: "X-Amz-Algorithm", value: "AWS4-HMAC-SHA256"),
        .init(name: "X-Amz-Credential", value: "AKIA-SECRET-1/20260101/us-east-1/s3/aws4_request"),
        .init(name: "X-Amz-Security-Token", value: "SECRET-2"),
        .init(name: "X-Amz-Signature", value: "SECRET-3"),
        .init(name: "AWSAccessKeyId", value: "SECRET-4"),
        .init(name: "Signature", value: "SECRET-5"),
        .init(name: "GoogleAccessId", value: "SECRET-6"),
        .init(name: "X-Goog-Signature", value: "SECRET-7"),
        .init(name: "sig", value: "SECRET-8"),
        .init(name: "sign", value: "SECRET-9"),
        .init(name: "pub_sign", value: "SECRET-10"),
        .init(name: "pub_ticket", value: "SECRET-11"),
        .init(name: "se", value: "2026-01-01"),
    ]

    private func logger() -> (Logger, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "hardening") { _ in handler }
        logger.logLevel = .debug
        return (logger, handler)
    }

    private func text(of handler: InMemoryLogHandler) -> String {
        handler.entries.map { "\($0.message) " + $0.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }.joined(separator: "\n")
    }

    @Test("a pre-signed URL's signatures appear in no error description and no log line", arguments: TransportKind.allCases)
    func presignedURLs(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let (logger, logs) = logger()
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport(),
                                   middleware: [LoggingMiddleware(logger: logger)])
            let absolute = server.url("/status/403").absoluteString
            for path in ["/status/404", absolute] {
                let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: path, query: Self.presigned)) }
                let description = "\(error.map { "\($0)" } ?? "")"
                #expect(description.contains("X-Amz-Signature=<redacted>"), "\(description)")
                #expect(description.contains("se=2026-01-01"), "not a secret: \(description)")
                for secret in (1...11).map({ "SECRET-\($0)" }) {
                    #expect(!description.contains(secret), "\(secret) in \(description)")
                }
            }
            let logged = text(of: logs)
            #expect(logged.contains("sig=<redacted>"))
            for secret in (1...11).map({ "SECRET-\($0)" }) {
                #expect(!logged.contains(secret), "\(secret) logged")
            }
        }
    }

    /// A message that tries to end the log line and write a forged one, clear the terminal and
    /// reverse the text that follows.
    static let forged = "bad request\n2026-01-01T00:00:00Z info FORGED login ok\r\u{1B}[2K\u{1B}]0;title\u{7}\u{9B}31m\u{2028}\u{202E}"

    @Test("a server's error message and body cannot forge log lines or send terminal escapes", arguments: TransportKind.allCases)
    func hostileErrorText(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let (logger, logs) = logger()
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport(),
                                   middleware: [LoggingMiddleware(logger: logger, style: .verbose)])
            let error = await #expect(throws: APIError.self) {
                try await client.send(Request<Data>(path: "/hostile/error", query: [
                    .init(name: "status", value: "422"), .init(name: "message", value: Self.forged), .init(name: "raw", value: Self.forged),
                ]))
            }
            let description = error.map { "\($0)" } ?? ""
            #expect(error?.statusCode == 422)
            #expect(description.contains(#"bad request\n2026-01-01T00:00:00Z info FORGED"#), "\(description)")
            #expect(!Self.hasUnsafeCharacter(description), "\(description.debugDescription)")
            let logged = text(of: logs)
            #expect(logged.contains("FORGED"), "the body was logged")
            #expect(!logged.contains("\nFORGED") && !logged.contains("\n2026-01-01T00:00:00Z info FORGED"))
            #expect(!Self.hasUnsafeCharacter(logged.replacingOccurrences(of: "\n", with: " ")), "\(logged.debugDescription)")
        }
    }

    static func hasUnsafeCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" || (0x202A...0x202E).contains($0.value) }
    }

    @Test("a recorded login keeps no password or token, sent or received", arguments: TransportKind.allCases)
    func cassetteBodies(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-hardening-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let recorder = RecordingTransport(kind.makeTransport(), file: file)
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: recorder)
            _ = try await client.send(Request<Data>(method: .post, path: "/hostile/tokens",
                                                    body: .form([("username", "ada"), ("password", "PW-CLIENT-SECRET"), ("client_secret", "CS-CLIENT-SECRET")])))
            _ = try await client.send(Request<Data>(method: .post, path: "/echo", body: .json(["refresh_token": "RT-CLIENT-SECRET", "name": "ada"])))
            let text = try String(contentsOf: file, encoding: .utf8)
            for secret in ["PW-CLIENT-SECRET", "CS-CLIENT-SECRET", "AT-SERVER-SECRET", "RT-SERVER-SECRET", "PW-SERVER-SECRET", "RT-CLIENT-SECRET"] {
                #expect(!text.contains(secret), "\(secret) recorded")
            }
            let cassette = try Cassette(contentsOf: file)
            #expect(cassette.exchanges.count == 2)
            #expect(cassette.exchanges[0].request.body == "username=ada&password=<redacted>&client_secret=<redacted>")
            #expect(cassette.exchanges[0].response.body.contains(#""token_type":"bearer""#))
        }
    }
}
