import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers `GET /file` on one connection as ``RangeServer`` describes.
final class RangeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private let behavior: RangeServer.Behavior
    private let state: NIOLockedValueBox<RangeServer.State>
    private var head: HTTPRequestHead?

    init(behavior: RangeServer.Behavior, state: NIOLockedValueBox<RangeServer.State>) {
        self.behavior = behavior
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            answer(head, channel: context.channel)
        }
    }

    private func answer(_ request: HTTPRequestHead, channel: any Channel) {
        let range = request.headers.first(name: "Range")
        let ifRange = request.headers.first(name: "If-Range")
        let version = state.withLockedValue { state -> Int in
            state.stats.requests += 1
            state.stats.ranges.append(range)
            state.stats.ifRanges.append(ifRange)
            return state.version
        }
        guard request.uri == "/file" else {
            respond(404, [("Content-Length", "0")], channel: channel)
            return
        }
        let size = behavior.size
        var fields = validatorFields(version: version)
        fields.append(("Date", FaultRoute.httpDate(Date())))
        fields.append(("Content-Type", "application/octet-stream"))
        if !behavior.ignoresRanges { fields.append(("Accept-Ranges", "bytes")) }
        switch behavior.digest {
        case .none: break
        case .correct: fields.append(("Repr-Digest", "sha-256=:\(Data(RangeContent.sha256(seed: behavior.seed, version: version, size: size)).base64EncodedString()):"))
        case .wrong: fields.append(("Repr-Digest", "sha-256=:\(Data(repeating: 7, count: 32).base64EncodedString()):"))
        }

        var start = 0
        var status = 200
        if !behavior.ignoresRanges, let range, range.hasPrefix("bytes="), range.hasSuffix("-"), let from = Int(range.dropFirst(6).dropLast()), from >= 0 {
            if ifRange == nil || matches(ifRange!, version: version) {
                guard from < size else {
                    respond(416, fields + [("Content-Range", "bytes */\(size)"), ("Content-Length", "0")], channel: channel)
                    return
                }
                start = from
                status = 206
            }
        }
        if status == 200 && behavior.partialForPlainRequests { status = 206 }
        var chunked = false
        var endless = false
        if status == 206 {
            if behavior.hugeContentRange {
                fields.append(("Content-Range", "bytes \(start)-9223372036854775806/9223372036854775807"))
            } else {
                fields.append(("Content-Range", "bytes \(Int64(start) + behavior.contentRangeShift)-\(size - 1)/\(size)"))
            }
            if behavior.endlessPartial && range != nil {
                chunked = true
                endless = true
            }
        }
        if chunked {
            fields.append(("Transfer-Encoding", "chunked"))
        } else {
            fields.append(("Content-Length", "\(size - start)"))
        }
        state.withLockedValue { $0.stats.statuses.append(status) }
        channel.write(ByteBuffer(bytes: FaultRoute.headList(status, fields)), promise: nil)
        let content = RangeContent.bytes(seed: behavior.seed, version: version, size: size)
        let cut = state.withLockedValue { state in state.cuts.first { $0.offset > start } }
        let writer = BodyWriter(channel: channel, content: content, behavior: behavior, state: state, offset: start,
                                cut: cut, chunked: chunked, endless: endless)
        writer.writeNext()
    }

    private func validatorFields(version: Int) -> [(String, String)] {
        switch behavior.validator {
        case .strongETag: return [("ETag", "\"\(behavior.seed)-v\(version)\"")]
        case .weakETag: return [("ETag", "W/\"\(behavior.seed)-v\(version)\"")]
        case .lastModified: return [("Last-Modified", lastModified(version: version))]
        case .none: return []
        }
    }

    private func matches(_ ifRange: String, version: Int) -> Bool {
        switch behavior.validator {
        case .strongETag: return ifRange == "\"\(behavior.seed)-v\(version)\""
        case .lastModified: return ifRange == lastModified(version: version)
        case .weakETag, .none: return false   // a weak tag never matches in If-Range (RFC 9110 §13.1.5)
        }
    }

    private func lastModified(version: Int) -> String {
        "Mon, 0\(min(version, 9)) Jan 2024 00:00:00 GMT"
    }

    private func respond(_ status: Int, _ fields: [(String, String)], channel: any Channel) {
        state.withLockedValue { $0.stats.statuses.append(status) }
        channel.writeAndFlush(ByteBuffer(bytes: FaultRoute.headList(status, fields)), promise: nil)
    }
}

/// Writes one answer's body a chunk at a time, each once the socket took the last, and cuts
/// it where ``RangeServer`` says.
///
/// `@unchecked Sendable`: every method runs on the channel's event loop (the first from the
/// handler's `channelRead`, the others from completions of the channel's own writes and tasks
/// scheduled on its loop), so its state is never touched from two threads.
private final class BodyWriter: @unchecked Sendable {  // confined to the channel's event loop
    private let channel: any Channel
    private let content: ByteBuffer
    private let behavior: RangeServer.Behavior
    private let state: NIOLockedValueBox<RangeServer.State>
    private var offset: Int
    private let cut: (offset: Int, reset: Bool)?
    private let chunked: Bool
    private let endless: Bool
    /// The most an endless body sends before giving up on a client that never stops reading.
    private static let endlessCap = 1 << 30

    init(channel: any Channel, content: ByteBuffer, behavior: RangeServer.Behavior, state: NIOLockedValueBox<RangeServer.State>,
         offset: Int, cut: (offset: Int, reset: Bool)?, chunked: Bool, endless: Bool) {
        self.channel = channel
        self.content = content
        self.behavior = behavior
        self.state = state
        self.offset = offset
        self.cut = cut
        self.chunked = chunked
        self.endless = endless
    }

    func writeNext() {
        guard channel.isActive else { return }
        let size = content.readableBytes
        if endless {
            guard offset < Self.endlessCap else { channel.close(promise: nil); return }
            let at = offset % size
            write(length: min(behavior.chunkSize, size - at), at: at)
            return
        }
        let limit = cut?.offset ?? size
        if offset >= limit, let cut {
            makeCut(cut)
            return
        }
        guard offset < size else {
            if chunked { channel.writeAndFlush(ByteBuffer(string: "0\r\n\r\n"), promise: nil) } else { channel.flush() }
            return
        }
        write(length: min(behavior.chunkSize, limit - offset), at: offset)
    }

    private func write(length: Int, at position: Int) {
        var buffer = content.getSlice(at: content.readerIndex + position, length: length)!
        if chunked {
            var framed = ByteBuffer(string: String(length, radix: 16) + "\r\n")
            framed.writeBuffer(&buffer)
            framed.writeString("\r\n")
            buffer = framed
        }
        channel.writeAndFlush(buffer).whenComplete { [self] result in
            guard case .success = result else { return }
            state.withLockedValue { $0.stats.bodyBytesSent += length }
            offset += length
            if let delay = behavior.chunkDelay {
                channel.eventLoop.scheduleTask(in: delay) { [self] in writeNext() }
            } else {
                writeNext()
            }
        }
    }

    private func makeCut(_ cut: (offset: Int, reset: Bool)) {
        state.withLockedValue { state in
            state.cuts.removeAll { $0.offset == cut.offset }
            state.stats.cutsMade += 1
            if cut.reset && !behavior.stallsAtCuts { state.stats.resets += 1 }
            if behavior.changesAtCut == state.stats.cutsMade { state.version = 2 }
        }
        if behavior.stallsAtCuts { return }   // nothing more, the connection left open
        let channel = channel
        if cut.reset, let provider = channel as? any SocketOptionProvider {
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
    }
}
