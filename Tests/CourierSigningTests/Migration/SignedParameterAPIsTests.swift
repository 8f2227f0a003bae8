// The Courier column of the article "Porting signed parameter APIs"
// (PortingSignedParameterAPIs.md): every Courier snippet of the article, run against a
// StubTransport. Keep the two in step.
import Courier
import CourierSigning
import CourierTesting
import Foundation
import HTTPTypes
import Logging
import Testing

@Suite("Porting signed parameter APIs")
struct SignedParameterAPIsTests {
    struct ConfigResponse: Codable, Sendable, Equatable {
        let success: Bool
        let data: [String: String]?
    }

    struct LoginResponse: Codable, Sendable, Equatable {
        let success: Bool
        let message: String?
    }

    struct ConfigRequest: APIRequest {
        typealias Response = ConfigResponse
        var path: RequestPath { "/client/config" }
        var options: RequestOptions { RequestOptions(timeout: .seconds(30)) }
    }

    struct LoginRequest: APIRequest {
        typealias Response = LoginResponse
        let username: String
        let password: String

        var method: HTTPRequest.Method { .post }
        var path: RequestPath { "/auth/login" }
        var body: RequestBody? { .json(["username": username, "password": password]) }
        var options: RequestOptions { RequestOptions(timeout: .seconds(30)) }
    }

    /// What the app knows about the device (the original's `BaseRequest` fields).
    struct Device: Sendable {
        var id = "ABC123"
        var model = "iPhone15,2"
        var osVersion = "17.5"
        var appVersion = "1.0.0"
        var channel = "appstore"
        var language = "zh-Hans"
    }

    /// Who is signed in (the original's `UserInfoManager`).
    actor UserSession {
        private var userID: String?
        private var ticket: String?

        func signIn(userID: String, ticket: String) {
            self.userID = userID
            self.ticket = ticket
        }

        /// `pub_uid` and `pub_ticket` when signed in, nothing otherwise.
        func headers() -> [URLQueryItem] {
            guard let userID, let ticket else { return [] }
            return [URLQueryItem(name: "pub_uid", value: userID), URLQueryItem(name: "pub_ticket", value: ticket)]
        }
    }

    /// Test scaffolding: what the snippets hand to the app.
    final class Screen: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var _events: [String] = []
        var events: [String] { lock.lock(); defer { lock.unlock() }; return _events }
        func record(_ event: String) { lock.lock(); _events.append(event); lock.unlock() }
    }

    let transport = StubTransport()
    let device = Device()
    let session = UserSession()
    let appSecret = "app-secret"
    let screen = Screen()
    func show(_ config: ConfigResponse) { screen.record("config \(config.success)") }
    func showAlert(_ text: String) { screen.record("alert: " + text) }

    /// A swift-log handler that keeps the messages (test scaffolding).
    struct CapturingLogHandler: LogHandler {
        let screen: Screen
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            screen.record("\(event.message)")
        }
    }

    /// The client the article builds.
    /// A logger that prints nothing (the tests that read the transcript pass their own).
    static let quiet: Logger = {
        var logger = Logger(label: "quiet")
        logger.logLevel = .critical
        return logger
    }()

    func makeClient(logger: Logger = Self.quiet) -> APIClient {
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!,
                                             timeout: .seconds(30), maxResponseSize: 50 * 1024 * 1024)
        configuration.defaultHeaders[HTTPField.Name("App-Version")!] = device.appVersion
        configuration.sendsPreferredLanguages = true                            // Accept-Language
        configuration.logger = logger                                           // where the request log goes

        let client = APIClient(configuration: configuration, transport: transport, middleware: [
            LoggingMiddleware(style: .verbose),
            RetryMiddleware(),
            BaseParametersMiddleware(placement: .query) {
                [URLQueryItem(name: "os", value: "iOS"),
                 URLQueryItem(name: "osVersion", value: device.osVersion),
                 URLQueryItem(name: "model", value: device.model),
                 URLQueryItem(name: "deviceId", value: device.id),
                 URLQueryItem(name: "appVersion", value: device.appVersion),
                 URLQueryItem(name: "channel", value: device.channel),
                 URLQueryItem(name: "lang", value: device.language)]
            },
            BaseParametersMiddleware(placement: .headers, for: .credentials) { await session.headers() },
            SigningMiddleware(.md5Parameters(MD5ParameterSignature(secret: appSecret, parameterName: "pub_sign"))),
        ])
        return client
    }

    /// The signature the server computes: every query parameter but `pub_sign`, sorted by key,
    /// `k=v` joined with `&`, `&key=<secret>`, MD5, upper-case hex.
    func expectedSignature(of request: RecordedRequest) -> String {
        var parameters = request.queryItems.filter { $0.name != "pub_sign" }.map { ($0.name, $0.value ?? "") }
        // The parameters of a JSON body count too: the seed signs every parameter it sends.
        if let body = try? request.decodedBody([String: String].self) { parameters += body.map { ($0.key, $0.value) } }
        return MD5ParameterSignature(secret: appSecret).signature(for: parameters)
    }

    // MARK: - Snippets

    @Test("base parameters in the query, session headers, and an MD5 signature over the sorted parameters")
    func baseParametersAndSignature() async throws {
        transport.on(.get, "/client/config", .json(ConfigResponse(success: true, data: ["feature": "on"])))
        let client = makeClient()

        let config = try await client.send(ConfigRequest())
        await session.signIn(userID: "u-7", ticket: "ticket-secret")
        _ = try await client.send(ConfigRequest())

        #expect(config.success)
        let (signedOut, signedIn) = (transport.requests[0], transport.requests[1])
        #expect(signedOut.queryItems.map(\.name) == ["os", "osVersion", "model", "deviceId", "appVersion", "channel", "lang", "pub_sign"])
        #expect(signedOut.queryItems.first { $0.name == "deviceId" }?.value == "ABC123")
        #expect(signedOut.queryItems.last?.value == expectedSignature(of: signedOut))
        #expect(signedOut.queryItems.last?.value?.count == 32)
        #expect(signedOut.headers[HTTPField.Name("App-Version")!] == "1.0.0")
        #expect(signedOut.headers[.acceptLanguage] != nil)
        #expect(signedOut.headers[HTTPField.Name("pub_uid")!] == nil)
        #expect(signedIn.headers[HTTPField.Name("pub_uid")!] == "u-7")
        #expect(signedIn.headers[HTTPField.Name("pub_ticket")!] == "ticket-secret")
    }

    @Test("a POST with a JSON body: base parameters and signature in the query, the body's members signed too")
    func login() async throws {
        transport.on(.post, "/auth/login", .json(LoginResponse(success: true, message: nil)))
        let client = makeClient()

        let response = try await client.send(LoginRequest(username: "ada", password: "secret"))

        #expect(response.success)
        let sent = try #require(transport.requests.last)
        #expect(sent.method == .post)
        #expect(try sent.decodedBody([String: String].self) == ["username": "ada", "password": "secret"])
        #expect(sent.queryItems.last?.name == "pub_sign")
        #expect(sent.queryItems.last?.value == expectedSignature(of: sent))
        // The server's check, by hand: the password is inside the signature.
        let query = sent.queryItems.filter { $0.name != "pub_sign" }.map { ($0.name, $0.value ?? "") }
        #expect(sent.queryItems.last?.value != MD5ParameterSignature(secret: appSecret).signature(for: query))
        #expect(sent.queryItems.last?.value == MD5ParameterSignature(secret: appSecret).signature(for: query + [("password", "secret"), ("username", "ada")]))
    }

    @Test("includeBaseParameters: false leaves them out (and the signature covers what is sent)")
    func withoutBaseParameters() async throws {
        transport.on(.get, "/client/init", .json(ConfigResponse(success: true, data: nil)))
        let client = makeClient()

        _ = try await client.send(Request<ConfigResponse>(path: "/client/init",
                                                          options: RequestOptions(includeBaseParameters: false)))

        let sent = try #require(transport.requests.last)
        #expect(sent.queryItems.map(\.name) == ["pub_sign"])
        #expect(sent.queryItems.last?.value == expectedSignature(of: sent))
    }

    @Test("includeBaseParameters: false leaves out the device's parameters, not the signed-in user's headers")
    func withoutBaseParametersWhileSignedIn() async throws {
        transport.on(.get, "/client/init", .json(ConfigResponse(success: true, data: nil)))
        let client = makeClient()
        await session.signIn(userID: "u-7", ticket: "t-1")

        _ = try await client.send(Request<ConfigResponse>(path: "/client/init",
                                                          options: RequestOptions(includeBaseParameters: false)))

        let sent = try #require(transport.requests.last)
        #expect(sent.queryItems.map(\.name) == ["pub_sign"])
        #expect(sent.headers[HTTPField.Name("pub_uid")!] == "u-7")
        #expect(sent.headers[HTTPField.Name("pub_ticket")!] == "t-1")
    }

    @Test("the error enum and URLError catches → CourierAPIError and networkFailure: each answer gets the seed's alert")
    func errors() async throws {
        let client = makeClient()
        let answers: [StubResponse] = [
            .status(500, message: "maintenance"),
            .failure(URLError(.notConnectedToInternet)),          // what URLSession reports offline
            .failure(TransportError(.timeout, "no answer")),
            .failure(URLError(.cannotFindHost)),
        ]
        for answer in answers {
            transport.reset()
            transport.on(.get, "/client/config", answer)

            do {
                let config = try await client.send(ConfigRequest())
                show(config)
            } catch let error as CourierAPIError {        // Courier's: see "Your own APIError enum" below
                switch error.networkFailure {
                case .offline?: showAlert("No network connection")
                case .timedOut?: showAlert("Request timed out")
                case .some(let failure): showAlert("Network error: \(failure)")
                case nil:
                    if let status = error.statusCode {
                        showAlert("Server error \(status): \(error.description)")
                    } else {
                        showAlert(error.description)      // an undecodable body, an invalid URL…
                    }
                }
            } catch is CancellationError {
                // the task was cancelled: nothing to show
            }
        }

        #expect(screen.events.count == 4)
        #expect(screen.events.first?.hasPrefix("alert: Server error 500: ") == true)
        #expect(screen.events.first?.contains("maintenance") == true)
        #expect(Array(screen.events.dropFirst()) == ["alert: No network connection", "alert: Request timed out", "alert: Network error: host not found"])
    }

    /// The seed's own error enum, kept while porting: inside this scope `APIError` means it,
    /// as it would in the app's module.
    enum KeptSeedTypes {
        enum APIError: Error, Equatable {
            case invalidURL, noData, timeout, unknown(String)
        }

        /// The seed's `catch`, unchanged: which branch runs for a Courier failure.
        static func seedCatch(_ operation: () async throws -> Void) async -> String {
            do {
                try await operation()
                return "success"
            } catch let error as APIError {
                return "seed enum: \(error)"
            } catch let error as CourierAPIError {
                return "Courier: \(error.kind)"
            } catch {
                return "other"
            }
        }
    }

    @Test("a kept seed enum APIError hides Courier's: `catch as APIError` never runs for Courier's errors; CourierAPIError does")
    func keptSeedEnumDoesNotCatchCourierErrors() async throws {
        let client = makeClient()
        transport.on(.get, "/client/config", .status(500))
        let branch = await KeptSeedTypes.seedCatch { _ = try await client.send(ConfigRequest()) }
        #expect(branch == "Courier: HTTP error")
        #expect(CourierAPIError.self == Courier.APIError.self)
    }

    @Test("requestWithRetry → RetryMiddleware: GETs are retried and signed afresh, POSTs are not retried")
    func retries() async throws {
        transport.on(.get, "/client/config", [.status(503), .json(ConfigResponse(success: true, data: nil))])
        transport.on(.post, "/auth/login", [.status(503), .json(LoginResponse(success: true, message: nil))])
        let client = makeClient()

        let config = try await client.send(ConfigRequest())
        await #expect(throws: APIError.self) { _ = try await client.send(LoginRequest(username: "ada", password: "pw")) }

        #expect(config.success)
        #expect(transport.requests.map(\.method) == [.get, .get, .post])
        #expect(transport.requests.map(\.attempt) == [1, 2, 1])
        #expect(transport.requests.filter { $0.method == .get }.allSatisfy { $0.queryItems.last?.value == expectedSignature(of: $0) })
    }

    @Test("APILogger → LoggingMiddleware(style: .verbose)")
    func verboseLog() async throws {
        transport.on(.get, "/client/config", .json(ConfigResponse(success: true, data: nil)))
        let log = Screen()
        let client = makeClient(logger: Logger(label: "api") { _ in CapturingLogHandler(screen: log) })
        await session.signIn(userID: "u-7", ticket: "ticket-secret")

        _ = try await client.send(ConfigRequest())

        let transcript = log.events.joined(separator: "\n")
        #expect(transcript.contains("🚀 API Request: GET https://api.example.com/client/config [ConfigRequest]"))
        #expect(transcript.contains("App-Version: 1.0.0"))
        #expect(transcript.contains("✅ API Response: 200"))
        #expect(transcript.contains("📦 Response Size:"))
        #expect(!transcript.contains("ticket-secret"))
    }

    @Test("cancelling the task: CancellationError, nothing shown")
    func cancellation() async throws {
        transport.on(.get, "/client/config", StubResponse.json(ConfigResponse(success: true, data: nil)).delayed(by: .seconds(30)))
        let client = makeClient()

        let task = Task {
            do {
                let config = try await client.send(ConfigRequest())
                show(config)
            } catch is CancellationError {
                // cancelled: nothing to show
            } catch {
                showAlert("\(error)")
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await task.value

        #expect(screen.events.isEmpty)
    }
}
