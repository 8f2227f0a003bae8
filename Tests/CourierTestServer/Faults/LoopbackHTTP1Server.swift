import NIOCore
import NIOHTTP1
import NIOPosix

/// A raw HTTP/1.1 listener on 127.0.0.1 (a port the OS picks) whose connections each get an
/// HTTP request decoder and the handler `makeHandler` builds: the range and upload servers,
/// which write their answers byte by byte to cut and lie on purpose.
enum LoopbackHTTP1Server {
    static func bind(_ makeHandler: @escaping @Sendable () -> any ChannelInboundHandler) async throws -> (channel: any Channel, port: Int) {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try channel.pipeline.syncOperations.addHandler(makeHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw FaultServerError.noPort
        }
        return (channel, port)
    }
}
