import Crypto
import Foundation
import NIOCore

/// One upload resource of ``UploadServer``: how far it got, its length once known, whether it
/// is complete, and the running SHA-256 of its bytes (never the bytes: a test sends 256 MiB).
struct UploadResource: Sendable {
    /// The request appending now: its connection, closed when a later request for the upload
    /// arrives (the draft's advice), and a ticket that tells it from the requests after it.
    struct Appender: Sendable {
        var ticket: Int
        var channel: any Channel
    }

    let id: String
    /// The creation request's method, target path and `Content-Type`, for the final answer.
    let method: String
    let path: String
    let contentType: String?
    var offset = 0
    var length: Int?
    var complete = false
    var hasher = SHA256()
    var appender: Appender?

    init(id: String, method: String, path: String, contentType: String?, length: Int?) {
        self.id = id
        self.method = method
        self.path = path
        self.contentType = contentType
        self.length = length
    }
}

extension SHA256 {
    /// Adds the first `count` readable bytes of `buffer`.
    mutating func update(_ buffer: ByteBuffer, count: Int) {
        buffer.withUnsafeReadableBytes { bytes in
            self.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes.prefix(count)))
        }
    }
}

/// The upload bookkeeping, each step done under the state's lock, so that requests on other
/// connections see an upload either before or after a body part, never in between.
///
/// Uploads are changed in place through the dictionary (`uploads[id]?.…`), never copied out
/// and back: a copy would share the hasher's context and make the next update copy it.
extension UploadServer.State {
    /// How a body part was taken.
    enum AppendOutcome {
        case appended
        /// The request no longer appends (a later request took the upload, or it is gone).
        case stopped
        /// The part goes past the upload's length: the upload is now invalid (gone).
        case exceeded
        /// A cut: the part was appended up to it, and the connection must end.
        case cut(reset: Bool)
    }

    /// Whether a `PATCH` may append, and if not why.
    enum AppendStart {
        case accepted(ticket: Int)
        case notFound, unsupportedMediaType, badRequest, completed, inconsistentLength
        case mismatchedOffset(expected: Int)
    }

    /// How an appending request's body ended.
    enum Finish {
        case stopped
        case incomplete(offset: Int)
        case inconsistentLength
        case completed(UploadServer.Completed)
    }

    /// A ticket for a request that starts appending.
    mutating func nextTicket() -> Int {
        tickets += 1
        return tickets
    }

    /// Takes the upload away from the request appending to it (a later request for it arrived):
    /// returns that request's connection, to be closed once the lock is released (closing it
    /// here could run its handler's `channelInactive`, which takes the lock), unless it is `channel`.
    mutating func supersede(_ id: String, by channel: any Channel) -> (any Channel)? {
        guard let appender = uploads[id]?.appender else { return nil }
        uploads[id]?.appender = nil
        return appender.channel === channel ? nil : appender.channel
    }

    /// Takes the next unused cut in `from + 1 ... through`: counts it and removes it.
    mutating func takeCut(after from: Int, through: Int, behavior: UploadServer.Behavior) -> (offset: Int, reset: Bool)? {
        guard let cut = cuts.first(where: { $0.offset > from }), cut.offset <= through else { return nil }
        cuts.removeAll { $0.offset == cut.offset }
        stats.cutsMade += 1
        if cut.reset && !behavior.failsAtCutsWith500 { stats.resets += 1 }
        return cut
    }

    /// Checks a `PATCH` and, when it may append, makes it the upload's appender. The upload's
    /// length is learnt from `Upload-Length`, or from `Content-Length` when the request completes it.
    mutating func startAppend(_ id: String, offset: Int?, completes: Bool?, declaredLength: Int??, contentLength: Int?,
                              partial: Bool, channel: any Channel) -> AppendStart {
        guard let current = uploads[id]?.offset, let complete = uploads[id]?.complete else { return .notFound }
        guard partial else { return .unsupportedMediaType }
        guard let offset, let completes else { return .badRequest }
        let declared: Int?
        switch declaredLength {
        case .none: declared = nil
        case .some(.none): return .badRequest   // present but not an Integer
        case .some(.some(let value)): declared = value
        }
        if complete { return .completed }
        guard offset == current else { return .mismatchedOffset(expected: current) }
        let known = uploads[id]?.length
        if let declared, declared < current || (known != nil && known != declared) { return .inconsistentLength }
        if known == nil {
            uploads[id]?.length = declared ?? (completes ? contentLength.map { current + $0 } : nil)
        }
        let ticket = nextTicket()
        uploads[id]?.appender = .init(ticket: ticket, channel: channel)
        return .accepted(ticket: ticket)
    }

    /// Appends a body part to upload `id` for the request holding `ticket`, up to the next cut.
    mutating func append(_ buffer: ByteBuffer, to id: String, ticket: Int, behavior: UploadServer.Behavior) -> AppendOutcome {
        guard uploads[id]?.appender?.ticket == ticket, let offset = uploads[id]?.offset else { return .stopped }
        let length = uploads[id]?.length
        let end = offset + buffer.readableBytes
        if let cut = takeCut(after: offset, through: min(end, length ?? end), behavior: behavior) {
            uploads[id]?.hasher.update(buffer, count: cut.offset - offset)
            uploads[id]?.offset = cut.offset
            uploads[id]?.appender = nil
            if behavior.forgetsAfterCut == stats.cutsMade { uploads[id] = nil }
            return .cut(reset: cut.reset)
        }
        if let length, end > length {
            uploads[id] = nil
            return .exceeded
        }
        uploads[id]?.hasher.update(buffer, count: buffer.readableBytes)
        uploads[id]?.offset = end
        return .appended
    }

    /// Ends the append of the request holding `ticket`: completes the upload when it said
    /// `Upload-Complete: ?1` and the length agrees.
    mutating func finish(_ id: String, ticket: Int, completes: Bool) -> Finish {
        guard uploads[id]?.appender?.ticket == ticket, let offset = uploads[id]?.offset else { return .stopped }
        uploads[id]?.appender = nil
        guard completes else { return .incomplete(offset: offset) }
        if let length = uploads[id]?.length, length != offset { return .inconsistentLength }
        uploads[id]?.length = offset
        uploads[id]?.complete = true
        guard let upload = uploads[id] else { return .stopped }
        let completed = UploadServer.Completed(id: id, size: offset, sha256Hex: RangeContent.hex(Array(upload.hasher.finalize())),
                                               contentType: upload.contentType, method: upload.method, path: upload.path)
        stats.completed.append(completed)
        return .completed(completed)
    }

    /// Lets go of the upload when the request holding `ticket` still appends to it (its connection closed).
    mutating func release(_ id: String, ticket: Int) {
        if uploads[id]?.appender?.ticket == ticket { uploads[id]?.appender = nil }
    }
}
