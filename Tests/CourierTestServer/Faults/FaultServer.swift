import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A loopback HTTP/1.1 server that misbehaves on purpose, written directly on SwiftNIO so it can
/// do what a well-behaved framework refuses to: truncate bodies, reset connections, drip bytes,
/// send stacked encodings, gzip bombs, huge headers and hostile `Location`s.
///
/// It counts accepted connections and received requests, so tests can assert what reached it
/// (for example that nothing was sent after a refused header).
///
/// ```swift
/// let server = try await FaultServer.start()
/// defer { Task { await server.stop() } }
/// // GET \(server.baseURL)/truncate → 200 with Content-Length 1000 but only 100 bytes, then close
/// ```
///
/// Routes: `/ok`, `/no-body?status=&length=` (a bodiless 304, 204 or `HEAD` answer; the connection
/// stays open), `/truncate`, `/reset`, `/reset-before-head`, `/close-before-head`, `/never`,
/// `/declared-stall` (a head declaring 1 GiB, 100 bytes, then silence), `/drip?ms=&bytes=`, `/stacked?layers=`, `/no-content-stacked` (a 204 naming `gzip, br`), `/bomb?mb=`, `/huge-header?kb=`, `/many-headers?n=`,
/// `/location?to=`, `/compressed-json?kb=` (gzip, ~300:1), `/encoded?coding=br` (a body in a coding
/// Courier does not decode), `/truncate-once/<key>` (the first request for a key is truncated, later
/// ones answer in full), `/partial-once/<key>?status=` (the first request for a key is cut after
/// 100 of 1,000 bytes, later ones answer `status`, default 204, without a body),
/// `/retry-after/<key>?status=&form=seconds|date&seconds=&times=` (503 or
/// 429 with `Retry-After` for the first `times` requests, then 200).
///
/// With `tls:` it speaks HTTPS instead (``FaultServer/TLS``, certificates from
/// ``TestCertificateAuthority``); a failed handshake counts as a connection but never as a request.
public final class FaultServer: Sendable {
    /// The port the server listens on (127.0.0.1).
    public let port: Int
    /// Whether the server speaks TLS.
    public let isTLS: Bool
    private let channel: any Channel
    private let counters: Counters

    /// `http://127.0.0.1:<port>`, or `https://127.0.0.1:<port>` with TLS.
    public var baseURL: URL { URL(string: "\(isTLS ? "https" : "http")://127.0.0.1:\(port)")! }

    /// Connections accepted so far.
    public var connectionCount: Int { counters.box.withLockedValue { $0.connections } }
    /// Request heads received so far.
    public var requestCount: Int { counters.box.withLockedValue { $0.requests } }
    /// Connections open right now.
    public var openConnections: Int { counters.box.withLockedValue { $0.open } }

    final class Counters: Sendable {
        struct Values { var connections = 0; var requests = 0; var open = 0; var hits: [String: Int] = [:] }
        let box = NIOLockedValueBox(Values())
    }

    private init(port: Int, isTLS: Bool, channel: any Channel, counters: Counters) {
        self.port = port
        self.isTLS = isTLS
        self.channel = channel
        self.counters = counters
    }

    /// Starts a server on 127.0.0.1 on a port the OS picks: plain HTTP/1.1, or HTTPS with the
    /// certificate in `tls`.
    public static func start(tls: TLS? = nil) async throws -> FaultServer {
        let counters = Counters()
        let context = try tls.map { try NIOSSLContext(configuration: $0.serverConfiguration()) }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                counters.box.withLockedValue { $0.connections += 1; $0.open += 1 }
                channel.closeFuture.whenComplete { _ in counters.box.withLockedValue { $0.open -= 1 } }
                return channel.eventLoop.makeCompletedFuture {
                    if let context {
                        // The marker sits in front of TLS so faults can close the socket under it.
                        try channel.pipeline.syncOperations.addHandler(RawSocketMarker(), name: RawSocketMarker.name)
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try channel.pipeline.syncOperations.addHandler(FaultHandler(counters: counters))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw FaultServerError.noPort
        }
        return FaultServer(port: port, isTLS: tls != nil, channel: channel, counters: counters)
    }

    /// Stops accepting connections. Open client connections are closed by their clients or
    /// when the process ends.
    public func stop() async {
        try? await channel.close()
    }
}

/// The fault server could not start.
public enum FaultServerError: Error { case noPort }
