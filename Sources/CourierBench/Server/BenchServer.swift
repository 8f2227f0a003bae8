import Foundation
import Hummingbird
import Logging

/// The loopback HTTP/1.1 server, run in its own process by `courier-bench --serve` so that its
/// CPU time is never counted as the client's.
///
/// It binds 127.0.0.1 on a port the OS picks, prints that port as the first line of stdout,
/// and serves with keep-alive: the ~1 KB users JSON at ``Fixtures/usersPath``, 1 MiB at
/// ``Fixtures/largePath``, a body of any size generated as it is sent at
/// ``Fixtures/generatedPath`` (`?bytes=N`, for the transfer probes), and ``Fixtures/uploadPath``,
/// which reads a request body to its end and answers with its length; and the cacheable routes
/// of ``CacheRoutes``.
///
/// Its stdin is a control channel: each line received makes it print, on stdout, the number of
/// TCP connections it has accepted so far (``ConnectionCounter``); end of file (the parent
/// closed the pipe or died) makes it exit, so no server outlives a benchmark.
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
        router.get(RouterPath(stringLiteral: Fixtures.generatedPath)) { request, _ in
            let size = request.uri.queryParameters.get("bytes", as: Int.self) ?? Fixtures.largeSize
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                            body: GeneratedBody.response(size: size))
        }
        router.get(RouterPath(stringLiteral: Fixtures.bombPath)) { request, _ in
            let size = request.uri.queryParameters.get("bytes", as: Int.self) ?? Fixtures.largeSize
            return Response(status: .ok, headers: [.contentType: "application/json", .contentEncoding: "deflate"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try DeflateBomb.zeros(size))))
        }
        CacheRoutes.add(to: router, users: users)
        router.post(RouterPath(stringLiteral: Fixtures.uploadPath)) { request, _ -> String in
            var received = 0
            for try await buffer in request.body { received += buffer.readableBytes }
            return "\(received)"
        }
        var logger = Logger(label: "courier-bench.server")
        logger.logLevel = .error
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: ConnectionCounter.accepted())),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "courier-bench"),
            onServerRunning: { channel in
                // Unbuffered, so the parent reads the port at once.
                FileHandle.standardOutput.write(Data("\(channel.localAddress?.port ?? 0)\n".utf8))
            },
            logger: logger
        )
        answerOnStdin()
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// From a thread of its own: prints the accepted-connection count for each line read from
    /// stdin, and exits the process once stdin reaches end of file.
    private static func answerOnStdin() {
        let thread = Thread {
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) > 0 {
                if byte == UInt8(ascii: "\n") {
                    FileHandle.standardOutput.write(Data("\(ConnectionCounter.count)\n".utf8))
                }
            }
            exit(0)
        }
        thread.start()
    }
}
