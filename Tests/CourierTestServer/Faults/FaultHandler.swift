import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers each request on a connection as its ``FaultRoute`` says.
final class FaultHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private let counters: FaultServer.Counters
    private var target = "/"

    init(counters: FaultServer.Counters) { self.counters = counters }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            target = head.uri
            counters.box.withLockedValue { $0.requests += 1 }
        case .body:
            break
        case .end:
            let hits = counters.box.withLockedValue { values -> Int in
                values.hits[target, default: 0] += 1
                return values.hits[target]!
            }
            perform(FaultRoute.route(for: target, hit: hits), context: context)
        }
    }

    private func perform(_ route: FaultRoute, context: ChannelHandlerContext) {
        switch route {
        case .respond(let bytes, let after):
            if !bytes.isEmpty { context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil) }
            context.flush()
            switch after {
            case .keepOpen: break
            case .close: Self.closeAbruptly(context.channel)
            case .closeAfter(let delay):
                let channel = context.channel
                channel.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
            case .reset:
                let channel = context.channel
                if let provider = channel as? any SocketOptionProvider {
                    provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in Self.closeAbruptly(channel) }
                } else {
                    Self.closeAbruptly(channel)
                }
            }
        case .drip(let head, let bytes, let interval):
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: head)), promise: nil)
            Self.drip(remaining: bytes, interval: interval, channel: context.channel)
        case .never:
            break
        case .pieces(let pieces, let interval):
            Self.write(pieces[...], interval: interval, channel: context.channel)
        }
    }

    /// Closes the socket. Over TLS the close goes under the TLS handler (no close_notify), the
    /// way a dropped connection or a truncation attack looks to the client.
    /// Call on the channel's event loop.
    private static func closeAbruptly(_ channel: any Channel) {
        if let raw = try? channel.pipeline.syncOperations.context(name: RawSocketMarker.name) {
            raw.close(promise: nil)
        } else {
            channel.close(promise: nil)
        }
    }

    private static func write(_ pieces: ArraySlice<[UInt8]>, interval: TimeAmount, channel: any Channel) {
        guard let first = pieces.first, channel.isActive else { return }
        channel.writeAndFlush(channel.allocator.buffer(bytes: first), promise: nil)
        channel.eventLoop.scheduleTask(in: interval) { write(pieces.dropFirst(), interval: interval, channel: channel) }
    }

    private static func drip(remaining: Int, interval: TimeAmount, channel: any Channel) {
        guard remaining > 0, channel.isActive else { return }
        channel.eventLoop.scheduleTask(in: interval) {
            guard channel.isActive else { return }
            channel.writeAndFlush(channel.allocator.buffer(bytes: [UInt8(ascii: "x")]), promise: nil)
            drip(remaining: remaining - 1, interval: interval, channel: channel)
        }
    }
}
