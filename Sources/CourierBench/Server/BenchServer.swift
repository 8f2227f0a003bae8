import Foundation
import Hummingbird
import Logging

/// The loopback HTTP/1.1 server, run in its own process by `courier-bench --serve` so that its
/// CPU time is never counted as the client's.
///
/// It binds 127.0.0.1 on a port the OS picks, prints that port as the first line of stdout,
/// and serves two fixed bodies with keep-alive: the ~1 KB users JSON at ``Fixtures/usersPath``
/// and 1 MiB at ``Fixtures/largePath``. It exits when its stdin reaches end of file (the parent
/// closed the pipe or died), so no server outlives a benchmark.
enum BenchServer {
    /// Runs the server until stdin closes.
    static func run() async throws {
        let users = ByteBuffer(bytes: Fixtures.usersJSON)
        let large = ByteBuffer(bytes: Fixtures.largeBody)
        let router = Router()
        router.get(RouterPath(stringLiteral: Fixtures.usersPath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: users))
        }
        router.get(RouterPath(stringLiteral: Fixtures.largePath)) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody(byteBuffer: large))
        }
        var logger = Logger(label: "courier-bench.server")
        logger.logLevel = .error
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "courier-bench"),
            onServerRunning: { channel in
                // Unbuffered, so the parent reads the port at once.
                FileHandle.standardOutput.write(Data("\(channel.localAddress?.port ?? 0)\n".utf8))
            },
            logger: logger
        )
        exitWhenStdinCloses()
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// Exits the process once stdin reaches end of file, from a thread of its own.
    private static func exitWhenStdinCloses() {
        let thread = Thread {
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) > 0 {}
            exit(0)
        }
        thread.start()
    }
}
