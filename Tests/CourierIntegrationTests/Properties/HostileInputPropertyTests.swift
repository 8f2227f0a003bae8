import Courier
import CourierTestServer
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Issue 12: seeded random hostile values through every entry point — `Request` (path, path
/// parameters, query, headers, bodies), `RequestOptions` (timeouts from zero to `Duration`'s
/// extremes, sizes from `Int.min` to `Int.max`), each middleware's configuration, and cassettes
/// (random JSON, hostile statuses) — end in an `APIError` or a success: never a crash, a hang, or
/// another error type. Requests go to the real test server over both transports; cassettes are
/// replayed. Each run prints `tried / handled` per entry point and transport.
///
/// A failing case names its seed and index: `HostileValues(seed:)` replays it.
@Suite("Hostile inputs: error or success, never a crash or a hang", .serialized)
struct HostileInputPropertyTests {
    /// Cases per entry point and transport.
    static let cases = 500
    /// A case that takes longer than this is a hang: far past the clients' 3–5 s deadlines, and
    /// past the 20 s a loaded CI machine has stalled a test for.
    static let hangLimit: Duration = .seconds(60)

    @Test("random requests: paths, path parameters, query, headers and bodies", arguments: TransportKind.allCases)
    func requests(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(5)), transport: kind.makeTransport())
            let origin = "http://127.0.0.1:\(server.port)"
            var values = HostileValues(seed: 0xC0FFEE_0001)
            var tally = Tally(entryPoint: "Request", transport: kind.rawValue)
            for index in 0..<Self.cases {
                let request = values.request(serverOrigin: origin)
                await tally.run(index, seed: 0xC0FFEE_0001, "\(request.method) \(request.path.debugDescription) \(request.pathParameters) \(request.query)") {
                    _ = try await client.send(request)
                }
            }
            tally.finish()
        }
    }

    @Test("random options: timeouts, sizes, acceptable statuses, retry and auth switches", arguments: TransportKind.allCases)
    func options(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let fastRetries = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), maxDelay: .milliseconds(5))
            var values = HostileValues(seed: 0xC0FFEE_0002)
            var tally = Tally(entryPoint: "RequestOptions", transport: kind.rawValue)
            for index in 0..<Self.cases {
                let options = values.options()
                let configurationTimeout = values.chance(20) ? values.duration() : .seconds(5)
                let configurationSize = values.chance(20) ? values.size() : APIConfiguration.defaultMaxResponseSize
                let path = values.pick(["/echo", "/echo", "/status/503", "/status/404", "/gzip", "/text"])
                let method = values.pick([HTTPRequest.Method.get, .post])
                let client = APIClient(
                    configuration: APIConfiguration(baseURL: server.baseURL, timeout: configurationTimeout, maxResponseSize: configurationSize),
                    transport: kind.makeTransport(), middleware: [RetryMiddleware(policy: fastRetries)])
                let request = Request<Data>(method: method, path: path, body: method == .post ? .data(Data("x".utf8), contentType: "text/plain") : nil,
                                            options: options)
                await tally.run(index, seed: 0xC0FFEE_0002,
                                "\(path) timeout=\(String(describing: options.timeout)) size=\(String(describing: options.maxResponseSize)) configuration=\(configurationTimeout)/\(configurationSize)") {
                    _ = try await client.send(request)
                }
            }
            tally.finish()
        }
    }

    @Test("random middleware configurations: base parameters, auth, signing, interceptors, validation, retry", arguments: TransportKind.allCases)
    func middleware(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let origin = "http://127.0.0.1:\(server.port)"
            let transport = kind.makeTransport()
            var values = HostileValues(seed: 0xC0FFEE_0003)
            var tally = Tally(entryPoint: "Middleware", transport: kind.rawValue)
            for index in 0..<Self.cases {
                let stack = values.middleware()
                let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(3)), transport: transport, middleware: stack)
                let request = values.chance(70)
                    ? Request<Data>(method: values.pick([.get, .post, .put]), path: values.pick(["/echo", "/echo/a", "/status/503", "/status/404"]),
                                    query: values.queryItems(), body: values.body())
                    : values.request(serverOrigin: origin)
                await tally.run(index, seed: 0xC0FFEE_0003, "\(stack.map { type(of: $0) }) \(request.method) \(request.path.debugDescription)") {
                    _ = try await client.send(request)
                }
            }
            tally.finish()
        }
    }

    @Test("random cassettes: any JSON, hostile statuses, headers and bodies, replayed")
    func cassettes() async throws {
        var values = HostileValues(seed: 0xC0FFEE_0004)
        var tally = Tally(entryPoint: "Cassette", transport: "ReplayTransport")
        let baseURL = URL(string: "https://api.example.com")!
        for index in 0..<Self.cases {
            let path = values.chance(90) ? values.pick(["/users/1", "/users", "/a%20b", "/items/%E4%B8%AD"]) : "/" + values.string()
            let json = values.cassetteJSON(url: "https://api.example.com" + path)
            let method = values.chance(80) ? HTTPRequest.Method.get : values.pick([.head, .post])
            await tally.run(index, seed: 0xC0FFEE_0004, String(decoding: json, as: UTF8.self), acceptsAnyError: true) {
                let cassette = try JSONDecoder().decode(Cassette.self, from: json)
                let client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: ReplayTransport(cassette: cassette))
                do {
                    _ = try await client.send(Request<Data>(method: method, path: path))
                } catch let error as APIError {
                    throw error
                } catch {
                    throw Tally.Unhandled(error: error)
                }
            }
        }
        tally.finish()
    }
}

/// Counts the cases of one entry point and transport, running each under a hang limit.
struct Tally {
    /// An error that is not the kind the entry point promises.
    struct Unhandled: Error { var error: any Error }

    let entryPoint: String
    let transport: String
    private(set) var tried = 0
    private(set) var handled = 0
    private(set) var succeeded = 0
    /// How the cases ended: `success`, or the error's kind (the `APIError` case, or its type).
    private(set) var outcomes: [String: Int] = [:]
    /// The first case of each outcome kind, with its error, to read in the output.
    private(set) var examples: [String: String] = [:]
    /// The slowest cases, to keep the suite fast.
    private(set) var slowest: [(Duration, String)] = []

    init(entryPoint: String, transport: String) {
        self.entryPoint = entryPoint
        self.transport = transport
    }

    /// Runs one case. Handled: it succeeded or threw an `APIError` (any error but ``Unhandled``
    /// when `acceptsAnyError`), within ``HostileInputPropertyTests/hangLimit``.
    mutating func run(_ index: Int, seed: UInt64, _ input: @autoclosure () -> String, acceptsAnyError: Bool = false,
                      _ body: @escaping @Sendable () async throws -> Void) async {
        tried += 1
        // A race whose loser is left running: a hung case must not hang the suite.
        let start = ContinuousClock.now
        let outcome: Result<Void, any Error>? = await withCheckedContinuation { continuation in
            let once = Locked(false)
            let timer = Locked<Task<Void, Never>?>(nil)
            @Sendable func finish(_ result: Result<Void, any Error>?) {
                guard once.withLock({ done in defer { done = true }; return !done }) else { return }
                timer.withLock { $0?.cancel() }
                continuation.resume(returning: result)
            }
            let work = Task {
                do { try await body(); finish(.success(())) } catch { finish(.failure(error)) }
            }
            timer.withLock { timer in
                timer = Task {
                    guard (try? await Task.sleep(for: HostileInputPropertyTests.hangLimit)) != nil else { return }
                    finish(nil)
                    work.cancel()
                }
            }
        }
        let where_ = "\(entryPoint) over \(transport), seed \(String(seed, radix: 16)) case \(index): \(input().prefix(600))"
        let elapsed = start.duration(to: .now)
        if elapsed > .milliseconds(500) { slowest.append((elapsed, where_.prefix(200) + "")) }
        let kind: String
        switch outcome {
        case .success?: kind = "success"
        case .failure(let error as APIError)?: kind = Mirror(reflecting: error).children.first?.label ?? "\(error)"
        case .failure(let error)?: kind = "\(type(of: error))"
        case nil: kind = "hang"
        }
        outcomes[kind, default: 0] += 1
        if examples[kind] == nil, case .failure(let error)? = outcome {
            examples[kind] = "case \(index): \(input().prefix(160)) → \(String(describing: error).prefix(240))"
        }
        switch outcome {
        case nil:
            Issue.record("hang (over \(HostileInputPropertyTests.hangLimit)) — \(where_)")
        case .success?:
            handled += 1
            succeeded += 1
        case .failure(let error as Unhandled)?:
            Issue.record("unhandled \(type(of: error.error)): \(error.error) — \(where_)")
        case .failure(let error)?:
            if acceptsAnyError || error is APIError {
                handled += 1
            } else {
                Issue.record("not an APIError: \(type(of: error)): \(error) — \(where_)")
            }
        }
    }

    /// Prints the figures and checks every case was handled.
    func finish() {
        print("hostile inputs — \(entryPoint) over \(transport): \(tried) tried / \(handled) handled (\(succeeded) succeeded, \(handled - succeeded) clear errors)")
        print("  outcomes: " + outcomes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for (kind, example) in examples.sorted(by: { $0.key < $1.key }) { print("  e.g. \(kind): \(example)") }
        for (elapsed, case_) in slowest.sorted(by: { $0.0 > $1.0 }).prefix(5) { print("  slow: \(elapsed) \(case_)") }
        #expect(tried >= HostileInputPropertyTests.cases)
        #expect(handled == tried)
    }
}
