import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A real HTTP/1.1 server on the loopback interface for Courier's integration tests.
///
/// Each server binds `127.0.0.1` on a port the OS picks, so any number can run at once
/// (two servers are two origins, for cross-origin redirect tests). Each has its own state
/// (request counter, bearer token, `/flaky` counters).
///
/// ```swift
/// try await withTestServer { server in
///     let url = server.baseURL.appendingPathComponent("echo")
///     // ... send requests ...
///     #expect(server.requestCount == 1)
/// }
/// ```
///
/// Routes (each group is documented in its own file):
/// - echo: `/echo` (GET, POST, PUT, PATCH, DELETE), `/echo/**` and `/headers` (any method)
///   answer `{"method", "target", "path", "query", "headers", "body", "bodyBase64"}`
/// - users: `GET /users/{id}` (404 for `404` or a non-number), `POST /users` (201, adds `"id": 101`)
/// - status: `/status/{code}`, `/flaky/{key}?failures=&status=&retryAfter=`, `/json/invalid`, `/text`
/// - timing: `/slow?ms=`, `/slow-body?ms=`, `/never`
/// - streaming: `/bytes/{n}`, `/stream-bytes/{n}`, `/infinite`; content: `/gzip`, `/events`
/// - redirects: `/redirect/{n}`, `/redirect-to?url=&status=` (any method), `/redirect-loop`
/// - auth: `GET /auth/protected`, `POST /auth/rotate`, `GET /auth/refresh-count`, `/auth/challenge/{scheme}`
/// - cookies: `/cookies/set?name=&value=`, `/cookies`; pagination: `/pages/cycle/{n}`, `/cursor-cycle`
/// - hostile: `/hostile/error?status=&message=&raw=` (any message characters), `POST /hostile/tokens`
/// - cache: `/cache/resource?key=&cc=&etag=&lastModified=&vary=&expires=&setCookie=&size=` (GET, POST),
///   `/cache/stats?key=`, `POST /cache/fail?key=&on=`
public final class TestServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The host the server is bound to, e.g. `127.0.0.1`.
    public let host: String
    let state: TestServerState
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>

    private init(host: String, port: Int, state: TestServerState, serviceGroup: ServiceGroup, runTask: Task<Void, any Error>) {
        self.host = host
        self.port = port
        self.state = state
        self.serviceGroup = serviceGroup
        self.runTask = runTask
    }

    /// Cancels the server if it was never stopped (a safety net; call ``stop()``).
    deinit {
        runTask.cancel()
    }

    /// `http://<host>:<port>`, with no trailing slash.
    public var baseURL: URL {
        let literal = host.contains(":") ? "[\(host)]" : host
        return URL(string: "http://\(literal):\(port)")!
    }

    /// `path` (which may carry a query, e.g. `"/echo?a=1"`) resolved against ``baseURL``.
    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + (path.hasPrefix("/") ? path : "/" + path))!
    }

    /// The number of requests that reached the server so far, whatever their route or outcome.
    public var requestCount: Int { state.requestCount }

    /// Starts a server on `host` with a port the OS picks, and returns once it accepts connections.
    ///
    /// Set the environment variable `COURIER_TEST_SERVER_LOG` to a swift-log level
    /// (e.g. `debug`) to see the server's logs; by default only errors are printed.
    public static func start(host: String = "127.0.0.1") async throws -> TestServer {
        let state = TestServerState()
        let router = TestServerRouter(context: TestServerContext.self, options: .autoGenerateHeadEndpoints)
        EchoRoutes.add(to: router)
        UserRoutes.add(to: router)
        StatusRoutes.add(to: router, state: state)
        TimingRoutes.add(to: router, state: state)
        StreamingRoutes.add(to: router, state: state)
        ContentRoutes.add(to: router, state: state)
        RedirectRoutes.add(to: router)
        AuthRoutes.add(to: router, state: state)
        CookieRoutes.add(to: router)
        CookieJarRoutes.add(to: router)
        PaginationRoutes.add(to: router)
        HostileRoutes.add(to: router)
        TransferRoutes.add(to: router, state: state)
        CacheRoutes.add(to: router, state: state)

        var logger = Logger(label: "CourierTestServer")
        logger.logLevel = ProcessInfo.processInfo.environment["COURIER_TEST_SERVER_LOG"]
            .flatMap { Logger.Level(rawValue: $0) } ?? .error

        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            responder: CountingResponder(base: router.buildResponder(), state: state),
            configuration: ApplicationConfiguration(address: .hostname(host, port: 0), serverName: "CourierTestServer"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [], logger: logger)
        // Backstop: anything still running 2 s after stop() is cancelled.
        configuration.maximumGracefulShutdownDuration = .seconds(2)
        let serviceGroup = ServiceGroup(configuration: configuration)
        let runTask = Task {
            defer { portContinuation.finish() }
            try await serviceGroup.run()
        }

        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            await serviceGroup.triggerGracefulShutdown()
            try await runTask.value  // rethrows the bind error, if any
            throw TestServerError.didNotStart(host: host)
        }
        return TestServer(host: host, port: port, state: state, serviceGroup: serviceGroup, runTask: runTask)
    }

    /// Stops the server and waits until it has fully shut down.
    ///
    /// The listener closes at once, idle keep-alive connections are closed, and slow or endless
    /// responses (`/slow`, `/never`, `/infinite`, ...) end at once. A connection that is still
    /// open after ``stopGracePeriod`` (e.g. a large body still draining to a client) is closed.
    /// Calling `stop()` again, or concurrently, is harmless.
    public func stop() async {
        state.beginStopping()
        await serviceGroup.triggerGracefulShutdown()
        let state = self.state
        let forceClose = Task {
            try await Task.sleep(for: Self.stopGracePeriod)
            state.closeOpenChannels()
        }
        _ = await runTask.result
        forceClose.cancel()
    }

    /// How long ``stop()`` lets open connections finish before closing them (200 ms).
    public static let stopGracePeriod: Duration = .milliseconds(200)
}

/// Why ``TestServer/start(host:)`` failed.
public enum TestServerError: Error, CustomStringConvertible {
    /// The server stopped before it reported a listening port.
    case didNotStart(host: String)

    public var description: String {
        switch self {
        case .didNotStart(let host): "The test server on \(host) stopped before it was listening"
        }
    }
}

/// Starts a ``TestServer``, runs `body` with it and always stops the server afterwards,
/// also when `body` throws.
public func withTestServer<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
