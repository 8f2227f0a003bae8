import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import Foundation
import Testing

/// Timeouts, cancellation and the response size limit, against a real server.
@Suite("Timeouts, cancellation and limits over real transports")
struct LimitsTests {
    // The hang guards below are far (≥ 3×) from both the passing time and the failing one: the
    // routes wait up to 10 minutes and a loaded CI machine has stalled a test for 20 s.

    @Test("a server that never answers ends in a timeout", arguments: TransportKind.allCases)
    func timeout(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.timeout = .milliseconds(500) }
            let elapsed = await ContinuousClock().measure {
                await #expect {
                    try await client.send(Request<Data>(path: "/never"))
                } throws: { error in
                    guard let apiError = error as? APIError, apiError.kind == .timeout else { return false }
                    return apiError.timeLimit == .milliseconds(500)
                }
            }
            #expect(elapsed < .seconds(90), "a hang guard: the server waits 10 minutes")
        }
    }

    @Test("a body that stalls mid-way ends in a timeout at the deadline", arguments: TransportKind.allCases)
    func stalledBodyAtDeadline(_ kind: TransportKind) async throws {
        // The client's idle read timeout is 10 minutes here, so only the transport's own timer
        // for the 500 ms deadline can end the request before the hang guard.
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        configuration.timeout.read = .seconds(600)
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let transport: any Transport = kind == .asyncHTTPClient
            ? AsyncHTTPClientTransport(client: httpClient, clientReadTimeout: .seconds(600)) : kind.makeTransport()
        do {
            try await withTestServer { (server: TestServer) async throws in
                let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .milliseconds(500)), transport: transport)
                let elapsed = await ContinuousClock().measure {
                    await #expect {
                        try await client.send(Request<Data>(path: "/slow-body", query: [.init(name: "ms", value: "600000")]))
                    } throws: { error in
                        guard let apiError = error as? APIError, apiError.kind == .timeout else { return false }
                        return apiError.timeLimit == .milliseconds(500)
                    }
                }
                #expect(elapsed < .seconds(90), "a hang guard: the body's rest comes after 10 minutes")
            }
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
        try await httpClient.shutdown()
    }

    @Test("a head or a body that stalls ends in a timeout before the deadline (AsyncHTTPClient: the idle read timeout), reported as that timeout, not as the deadline",
          arguments: ["/slow", "/slow-body"])
    func stalledAsyncHTTPClient(_ path: String) async throws {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration()
        configuration.timeout.read = .milliseconds(500)
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            try await withTestServer { (server: TestServer) async throws in
                // The deadline is 300 s: only the 500 ms read timeout can end the request before
                // the hang guard.
                let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(300)),
                                       transport: AsyncHTTPClientTransport(client: httpClient, clientReadTimeout: .milliseconds(500)))
                let elapsed = await ContinuousClock().measure {
                    let error = await #expect(throws: APIError.self) {
                        try await client.send(Request<Data>(path: path, query: [.init(name: "ms", value: "600000")]))
                    }
                    #expect(error?.kind == .timeout)
                    // What ran out, not the 300 s the request was given.
                    #expect(error?.timeLimit == .milliseconds(500), "\(String(describing: error))")
                    #expect(error.map { "\($0)" }?.contains("read timeout") == true, "\(String(describing: error))")
                }
                #expect(elapsed < .seconds(90), "a hang guard: the route answers after 10 minutes")
            }
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
        try await httpClient.shutdown()
    }

    @Test("cancelling the task cancels the exchange promptly, and the client keeps working", arguments: TransportKind.allCases)
    func cancellation(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let task = Task { try await client.send(Request<Data>(path: "/never")) }
            try await Task.sleep(for: .milliseconds(200))
            let elapsed = await ContinuousClock().measure {
                task.cancel()
                await #expect(throws: CancellationError.self) { try await task.value }
            }
            #expect(elapsed < .seconds(90), "a hang guard, not a timing measurement: the server waits 10 minutes")
            #expect(try await client.send(Request<String>(path: "/text")) == "hello")
        }
    }

    @Test("an error response larger than the size limit keeps its first maxResponseSize bytes", arguments: TransportKind.allCases)
    func errorBodyPrefix(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.maxResponseSize = 1_000 }
            let error = await #expect(throws: APIError.self) {
                try await client.send(Request<Data>(path: "/transfers/download/\(UUID().uuidString)/2000?status=503"))
            }
            #expect(error?.kind == .httpError, "\(String(describing: error))")
            #expect(error?.statusCode == 503)
            #expect(error?.body.count == 1_000, "\(String(describing: error))")
        }
    }

    @Test("a declared length over the limit is refused before reading", arguments: TransportKind.allCases)
    func declaredLengthOverLimit(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.maxResponseSize = 100_000 }
            await #expect {
                try await client.send(Request<Data>(path: "/bytes/2000000"))
            } throws: { error in
                if let apiError = error as? APIError, apiError.kind == .resourceTooLarge, apiError.sizeLimit == 100_000 { return true }
                return false
            }
            #expect(try await client.send(Request<Data>(path: "/bytes/100000")).count == 100_000)
        }
    }

    @Test("a chunked body is cut off at the limit while it streams", arguments: TransportKind.allCases)
    func streamedOverLimit(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.maxResponseSize = 200_000 }
            await #expect {
                try await client.send(Request<Data>(path: "/stream-bytes/5000000"))
            } throws: { error in
                if (error as? APIError)?.kind == .resourceTooLarge { return true }
                return false
            }
        }
    }

    @Test("an endless body ends in resourceTooLarge, not a hang", arguments: TransportKind.allCases)
    func endlessBody(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.maxResponseSize = 1_000_000; $0.timeout = .seconds(60) }
            await #expect {
                try await client.send(Request<Data>(path: "/infinite"))
            } throws: { error in
                if (error as? APIError)?.kind == .resourceTooLarge { return true }
                return false
            }
            #expect(try await client.send(Request<String>(path: "/text")) == "hello")
        }
    }

    @Test("a refused connection is a network error", arguments: TransportKind.allCases)
    func connectionRefused(_ kind: TransportKind) async throws {
        let server = try await TestServer.start()
        let url = server.baseURL
        await server.stop()
        let client = APIClient(configuration: APIConfiguration(baseURL: url, timeout: .seconds(5)), transport: kind.makeTransport())
        await #expect {
            try await client.send(Request<Data>(path: "/text"))
        } throws: { error in
            if (error as? APIError)?.kind == .network { return true }
            return false
        }
    }
}

/// Timeouts at the extremes of `Duration` never crash the deadline arithmetic.
@Suite("Extreme timeouts")
struct ExtremeTimeoutTests {
    @Test("a timeout of .seconds(Int64.max) means no timeout: the request succeeds", arguments: TransportKind.allCases)
    func hugeTimeout(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            for timeout: Duration in [.seconds(Int64.max), .seconds(Int64.max / 2), .seconds(1e15)] {
                let client = kind.client(for: server) { $0.timeout = timeout }
                #expect(try await client.send(Request<Echo>(path: "/echo")).method == "GET")
                var options = RequestOptions()
                options.timeout = timeout
                #expect(try await kind.client(for: server).send(Request<Echo>(path: "/echo", options: options)).method == "GET")
            }
        }
    }

    @Test("a zero or negative timeout is an immediate timeout, not a crash", arguments: TransportKind.allCases)
    func zeroTimeout(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            for timeout: Duration in [.zero, .seconds(-1), .seconds(Int64.min)] {
                let client = kind.client(for: server) { $0.timeout = timeout }
                await #expect {
                    try await client.send(Request<Echo>(path: "/slow", query: [.init(name: "ms", value: "200")]))
                } throws: { error in
                    (error as? APIError)?.kind == .timeout
                }
            }
        }
    }
}
