import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// The demo's embedded users API (see ``DemoRoutes``), served by Hummingbird on
/// `127.0.0.1` with a port the OS picks.
///
/// ```swift
/// let server = try await DemoServer.start()
/// defer { ... }                    // call `await server.stop()` when done
/// print(server.baseURL)            // http://127.0.0.1:<port>
/// ```
///
/// ``stop()`` shuts the server down gracefully and waits for it, so nothing keeps running
/// afterwards and the demo binary exits by itself.
final class DemoServer: Sendable {
    /// The port the server listens on.
    let port: Int
    /// The users table behind the API.
    let store: DemoUserStore
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>

    private init(port: Int, store: DemoUserStore, serviceGroup: ServiceGroup, runTask: Task<Void, any Error>) {
        self.port = port
        self.store = store
        self.serviceGroup = serviceGroup
        self.runTask = runTask
    }

    /// Cancels the server if it was never stopped (a safety net; call ``stop()``).
    deinit {
        runTask.cancel()
    }

    /// `http://127.0.0.1:<port>`, with no trailing slash.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The API key the `/v1` routes require in `X-API-Key`.
    static var apiKey: String { DemoRoutes.apiKey }

    /// Starts the demo API on 127.0.0.1 and returns once it accepts connections.
    ///
    /// The server logs only errors, so it does not interleave with the demo's transcript;
    /// set `COURIER_DEMO_SERVER_LOG=debug` (any swift-log level) to see more.
    static func start() async throws -> DemoServer {
        let store = DemoUserStore()
        var logger = Logger(label: "courier-demo.server")
        logger.logLevel = ProcessInfo.processInfo.environment["COURIER_DEMO_SERVER_LOG"]
            .flatMap { Logger.Level(rawValue: $0) } ?? .error

        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: DemoRoutes.makeRouter(store: store),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "courier-demo"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger
        )
        var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(3)
        let serviceGroup = ServiceGroup(configuration: configuration)
        let runTask = Task {
            defer { portContinuation.finish() }
            try await serviceGroup.run()
        }

        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            await serviceGroup.triggerGracefulShutdown()
            try await runTask.value  // rethrows the bind error, if any
            throw DemoServerError.didNotStart
        }
        return DemoServer(port: port, store: store, serviceGroup: serviceGroup, runTask: runTask)
    }

    /// Stops the server gracefully and waits until it has shut down. Idempotent.
    func stop() async {
        await serviceGroup.triggerGracefulShutdown()
        _ = await runTask.result
    }
}

/// Why ``DemoServer/start()`` failed.
enum DemoServerError: Error, CustomStringConvertible {
    /// The server stopped before it reported a listening port.
    case didNotStart

    var description: String { "The demo server stopped before it was listening" }
}
