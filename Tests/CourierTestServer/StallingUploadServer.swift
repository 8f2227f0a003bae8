import Foundation
import NIOCore
import NIOPosix

/// A bare TCP server for upload back-pressure tests: it reads a request's body up to
/// `stallAfter` bytes, then stops reading its socket altogether — no buffering in a framework
/// between the socket and the handler, unlike Hummingbird's request-body stream — until
/// ``release()``; then it reads the rest and answers `200` with
/// `{"bytes": "<body bytes>", "checksum": "0"}`.
///
/// One request per connection (`Connection: close`); the request head is read as raw text and
/// only `Content-Length` is looked at.
public final class StallingUploadServer: Sendable {
    struct Values: Sendable {
        var received = 0
        var stalled = false
        var released = false
        var channels: [any Channel] = []
    }

    private let state = Locked(Values())
    private let serverChannel: any Channel
    /// The port the server listens on (on 127.0.0.1).
    public let port: Int

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Body bytes read so far.
    public var received: Int { state.withLock { $0.received } }
    /// Whether the server has stopped reading (it read `stallAfter` bytes and was not released).
    public var isStalled: Bool { state.withLock { $0.stalled } }

    private init(serverChannel: any Channel, port: Int) {
        self.serverChannel = serverChannel
        self.port = port
    }

    /// Starts a server that stops reading after `stallAfter` body bytes.
    public static func start(stallAfter: Int) async throws -> StallingUploadServer {
        let box = Locked<StallingUploadServer?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            // A fixed receive buffer: left to autotuning (up to tcp_rmem's maximum, 32 MiB on
            // some machines) the kernel could take most of a test body while nobody reads.
            .childChannelOption(.socketOption(.so_rcvbuf), value: 256 * 1024)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(stallAfter: stallAfter, server: { box.withLock { $0 } }))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let server = StallingUploadServer(serverChannel: channel, port: channel.localAddress?.port ?? 0)
        box.withLock { $0 = server }
        return server
    }

    /// Lets the stalled connections read again.
    public func release() {
        let channels = state.withLock { values -> [any Channel] in
            values.released = true
            return values.channels
        }
        for channel in channels { channel.read() }
    }

    /// Closes the server and its connections.
    public func stop() async {
        release()
        for channel in state.withLock({ $0.channels }) { try? await channel.close() }
        try? await serverChannel.close()
    }

    fileprivate func opened(_ channel: any Channel) { state.withLock { $0.channels.append(channel) } }
    fileprivate func add(_ bytes: Int) { state.withLock { $0.received += bytes } }
    /// Whether the connection may read on: below `stallAfter`, or released. Marks the stall.
    fileprivate func mayRead(stallAfter: Int) -> Bool {
        state.withLock { values in
            if values.released || values.received < stallAfter { return true }
            values.stalled = true
            return false
        }
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let stallAfter: Int
        let server: @Sendable () -> StallingUploadServer?
        var head = [UInt8]()
        var headDone = false
        var expected = 0
        var bodyBytes = 0

        init(stallAfter: Int, server: @escaping @Sendable () -> StallingUploadServer?) {
            self.stallAfter = stallAfter
            self.server = server
        }

        func channelActive(context: ChannelHandlerContext) {
            server()?.opened(context.channel)
            context.read()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            if !headDone {
                head += buffer.readBytes(length: buffer.readableBytes) ?? []
                guard let end = Self.headEnd(head) else { return }
                headDone = true
                let text = String(decoding: head[..<end], as: UTF8.self).lowercased()
                for line in text.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    expected = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                count(head.count - (end + 4))
                head = []
            } else {
                count(buffer.readableBytes)
            }
        }

        private func count(_ bytes: Int) {
            bodyBytes += bytes
            server()?.add(bytes)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            if headDone, bodyBytes >= expected {
                let json = #"{"bytes": "\#(bodyBytes)", "checksum": "0"}"#
                let response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)"
                // Closed once written: the channel's promise, on its own event loop.
                let closed = context.eventLoop.makePromise(of: Void.self)
                closed.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response)), promise: closed)
                return
            }
            if server()?.mayRead(stallAfter: stallAfter) ?? true { context.read() }
        }

        static func headEnd(_ bytes: [UInt8]) -> Int? {
            guard bytes.count >= 4 else { return nil }
            for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                return index
            }
            return nil
        }
    }
}
