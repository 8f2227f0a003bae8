import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTPS server that speaks HTTP/2 only (ALPN `h2`) and gives every request but `/warm` the
/// same ``Answer``: a complete response, or a response head whose stream it never ends — no
/// `END_STREAM`, no DATA, no reset. The latter is what a hostile or broken HTTP/2 server can
/// do after a `HEAD`, a `204` or a `304` (over HTTP/1.1 such a response ends at its head; over
/// HTTP/2 only `END_STREAM` ends it); a client that waits for the end without a deadline waits
/// for ever. `/warm` always gets a complete `200` with `[]`, so a test can open the connection
/// (TCP, TLS, HTTP/2 settings) before the request it times.
///
/// Swift-nio-http2 (already in the package graph through AsyncHTTPClient) rather than
/// Hummingbird's HTTP/2 support: Hummingbird writes the end of a response itself, and this
/// server must be able to leave it out.
public final class HTTP2TestServer: Sendable {
    /// What the server answers every request with.
    public enum Answer: Sendable {
        /// A head with `status` and a `content-type: application/json`, then `body` in one DATA
        /// frame that ends the stream.
        case complete(status: Int, body: Data)
        /// A head with `status`, and nothing after it: the stream stays open.
        case headOnly(status: Int)
    }

    /// The port on 127.0.0.1.
    public let port: Int
    private let channel: any Channel
    private let answered: NIOLockedValueBox<Int>

    /// How many requests (`/warm` included) arrived as HTTP/2 streams and were answered.
    public var requestsAnswered: Int { answered.withLockedValue { $0 } }

    /// `https://127.0.0.1:<port>` (the generated valid leaf names `localhost` and `127.0.0.1`).
    public var baseURL: URL { URL(string: "https://127.0.0.1:\(port)")! }

    private init(port: Int, channel: any Channel, answered: NIOLockedValueBox<Int>) {
        self.port = port
        self.channel = channel
        self.answered = answered
    }

    /// Starts the server on a port the OS picks, presenting `tls`, offering only `h2` and giving
    /// every request `answer`.
    public static func start(tls: FaultServer.TLS, answer: Answer) async throws -> HTTP2TestServer {
        var configuration = tls.serverConfiguration()
        configuration.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: configuration)
        let answered = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2Pipeline(mode: .server, inboundStreamInitializer: { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(AnsweringStreamHandler(answer: answer, answered: answered))
                        }
                    }).map { _ in }
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw FaultServerError.noPort
        }
        return HTTP2TestServer(port: port, channel: channel, answered: answered)
    }

    /// Stops accepting connections; open ones are closed by their clients or when the process ends.
    public func stop() async {
        try? await channel.close()
    }
}

/// Answers a stream's request with the server's ``HTTP2TestServer/Answer`` once the client has
/// sent all of it.
final class AnsweringStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let answer: HTTP2TestServer.Answer
    private let count: NIOLockedValueBox<Int>
    private var answered = false
    private var path = ""

    init(answer: HTTP2TestServer.Answer, answered: NIOLockedValueBox<Int>) {
        self.answer = answer
        self.count = answered
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ended: Bool
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            if let path = headers.headers.first(name: ":path") { self.path = path }
            ended = headers.endStream
        case .data(let data): ended = data.endStream
        default: ended = false
        }
        guard ended, !answered else { return }
        answered = true
        count.withLockedValue { $0 += 1 }
        switch path == "/warm" ? .complete(status: 200, body: Data("[]".utf8)) : answer {
        case .headOnly(let status):
            let head = HPACKHeaders([(":status", String(status)), ("content-type", "application/json")])
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: head, endStream: false))), promise: nil)
        case .complete(let status, let body):
            let head = HPACKHeaders([(":status", String(status)), ("content-type", "application/json"), ("content-length", String(body.count))])
            context.write(wrapOutboundOut(.headers(.init(headers: head, endStream: false))), promise: nil)
            let buffer = context.channel.allocator.buffer(bytes: body)
            context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(buffer), endStream: true))), promise: nil)
        }
    }
}
