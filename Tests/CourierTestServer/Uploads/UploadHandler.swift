import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers one connection's requests as ``UploadServer`` describes. A body is taken a part at
/// a time, as it arrives: hashed and counted, never kept.
final class UploadHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    /// What the body of the request being read is for.
    enum Mode {
        /// No request, or one answered already (its body, if any, is dropped).
        case idle
        /// A plain upload, hashed and counted here.
        case plain(PlainUpload)
        /// An append to an upload resource (a resumable creation's body too).
        case appending(Appending)
    }

    /// A request appending to upload `id` with its ticket: `completes` is its `Upload-Complete`,
    /// `creation` whether it created the upload (answered `201` rather than `204`).
    struct Appending {
        let id: String
        let ticket: Int
        let completes: Bool
        let creation: Bool
    }

    /// A plain upload's running digest and length, with what its final answer repeats. A class,
    /// so that the hasher is updated in place rather than copied out of ``Mode`` at each part.
    final class PlainUpload {
        var hasher = SHA256()
        var size = 0
        let method: String
        let path: String
        let contentType: String?

        init(method: String, path: String, contentType: String?) {
            self.method = method
            self.path = path
            self.contentType = contentType
        }
    }

    static let uploadsPrefix = "/uploads/"

    let behavior: UploadServer.Behavior
    let state: NIOLockedValueBox<UploadServer.State>
    var mode = Mode.idle
    /// Whether the connection stays open after the current request's answer.
    var keepAlive = true
    /// Set once the connection is ending (a cut, a close, a superseded append): whatever is
    /// read after is ignored.
    var ended = false

    init(behavior: UploadServer.Behavior, state: NIOLockedValueBox<UploadServer.State>) {
        self.behavior = behavior
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        let channel = context.channel
        switch unwrapInboundIn(data) {
        case .head(let head):
            begin(head, channel: channel)
        case .body(let buffer):
            state.withLockedValue { $0.stats.bodyBytesReceived += buffer.readableBytes }
            receive(buffer, channel: channel)
        case .end:
            end(channel: channel)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .appending(let appending) = mode {
            state.withLockedValue { $0.release(appending.id, ticket: appending.ticket) }
        }
        mode = .idle
        ended = true
        context.fireChannelInactive()
    }

    /// Routes a request by its method and target.
    private func begin(_ head: HTTPRequestHead, channel: any Channel) {
        keepAlive = head.isKeepAlive
        mode = .idle
        let path = head.uri.firstIndex(of: "?").map { String(head.uri[..<$0]) } ?? head.uri
        state.withLockedValue { $0.stats.requests += 1 }
        if path.hasPrefix(Self.uploadsPrefix) {
            let id = String(path.dropFirst(Self.uploadsPrefix.count))
            switch head.method {
            case .HEAD: retrieveOffset(id, channel: channel)
            case .PATCH: beginAppend(head, id: id, channel: channel)
            case .DELETE: cancel(id, channel: channel)
            case .OPTIONS:
                state.withLockedValue { $0.stats.options += 1 }
                respond(204, [("Allow", "HEAD, PATCH, DELETE, OPTIONS")], channel: channel)
            default: respond(405, [("Allow", "HEAD, PATCH, DELETE, OPTIONS")], channel: channel)
            }
            return
        }
        switch head.method {
        case .OPTIONS: announce(channel: channel)
        case .POST, .PUT: beginCreation(head, path: path, channel: channel)
        default: respond(405, [("Allow", "OPTIONS, POST, PUT")], channel: channel)
        }
    }

    private func receive(_ buffer: ByteBuffer, channel: any Channel) {
        switch mode {
        case .idle:
            return
        case .plain(let upload):
            let cut = state.withLockedValue {
                $0.takeCut(after: upload.size, through: upload.size + buffer.readableBytes, behavior: behavior)
            }
            let count = cut.map { $0.offset - upload.size } ?? buffer.readableBytes
            upload.hasher.update(buffer, count: count)
            upload.size += count
            if let cut { makeCut(reset: cut.reset, channel: channel) }
        case .appending(let appending):
            switch state.withLockedValue({ $0.append(buffer, to: appending.id, ticket: appending.ticket, behavior: behavior) }) {
            case .appended:
                return
            case .stopped:
                // A later request for the upload took it and closes this connection.
                mode = .idle
                ended = true
                channel.close(promise: nil)
            case .exceeded:
                mode = .idle
                respondInconsistentLength(channel: channel)
            case .cut(let reset):
                makeCut(reset: reset, channel: channel)
            }
        }
    }

    /// The request's end: the answer of a body read to its end.
    private func end(channel: any Channel) {
        let mode = self.mode
        self.mode = .idle
        switch mode {
        case .idle:
            return
        case .plain(let upload):
            let completed = UploadServer.Completed(id: "plain", size: upload.size, sha256Hex: RangeContent.hex(Array(upload.hasher.finalize())),
                                                   contentType: upload.contentType, method: upload.method, path: upload.path)
            state.withLockedValue { $0.stats.completed.append(completed) }
            respond(200, [("Content-Type", "application/json")], body: UploadWire.finalAnswer(completed), channel: channel)
        case .appending(let appending):
            finishAppend(appending, channel: channel)
        }
    }

    /// Ends the connection at a cut: a `500` then a close, or a close, or a reset.
    private func makeCut(reset: Bool, channel: any Channel) {
        mode = .idle
        ended = true
        if behavior.failsAtCutsWith500 {
            UploadWire.write(500, [], to: channel, state: state, then: .close)
        } else if reset {
            UploadWire.reset(channel)
        } else {
            UploadWire.closeGracefully(channel)
        }
    }

    /// Answers the current request, and closes after it when the request asked to.
    func respond(_ status: Int, _ fields: [(String, String)], body: [UInt8] = [], channel: any Channel) {
        if !keepAlive { ended = true }
        UploadWire.write(status, fields, body: body, to: channel, state: state, then: keepAlive ? .keep : .close)
    }

    func respondInconsistentLength(channel: any Channel) {
        respond(400, [("Content-Type", "application/problem+json")],
                body: UploadWire.problem("inconsistent-upload-length", title: "The upload's length is inconsistent"), channel: channel)
    }
}
