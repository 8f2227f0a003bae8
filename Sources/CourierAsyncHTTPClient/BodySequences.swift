import AsyncHTTPClient
import Courier
import NIOCore
import OpenAPIRuntime

/// A request `HTTPBody` as the `ByteBuffer`s AsyncHTTPClient writes, reporting upload progress.
///
/// AsyncHTTPClient pulls the next chunk while the connection is writable: the channel's buffer
/// is below its high-water mark (64 KiB). The bytes of the chunks before the one being asked
/// for are bytes handed to the connection: that is what is reported as sent, never bytes merely
/// read from the source.
///
/// AsyncHTTPClient learns that its channel stopped being writable on the channel's event loop,
/// while it asks for chunks from a task on another thread; until the pause reaches that task,
/// it keeps asking, and each chunk waits in the event loop's queue (AsyncHTTPClient issue 784:
/// 6–26 MiB read ahead of a stalled server in our tests). So every ``catchUpInterval`` bytes the
/// sequence waits until each event loop of the client has run what was queued before: the
/// writes handed over so far are then in the channel, and a pause they caused has been seen:
/// the body runs at most about 1 MiB (plus the kernel's send buffer) ahead of the wire.
/// One hop per event loop per MiB, whatever the chunk size — per 64 KiB under an idle timeout,
/// whose watch hears of movement only when a chunk is asked for.
struct ByteBufferSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let body: HTTPBody
    /// Told what the connection has taken (`nil`: nobody asked).
    let progress: UploadProgressReporter?
    /// Told each time the connection takes a chunk, for the client's idle timeout (`nil`: none).
    let activity: UploadActivity?
    /// The client's event loops, one of which carries the connection.
    let eventLoops: any EventLoopGroup
    /// The bytes handed to AsyncHTTPClient so far, for ``reportSent()``.
    private let handed = Locked<Int64>(0)

    init(body: HTTPBody, progress: UploadProgressReporter?, activity: UploadActivity? = nil, eventLoops: any EventLoopGroup) {
        self.body = body
        self.progress = progress
        self.activity = activity
        self.eventLoops = eventLoops
    }

    /// The response has arrived: reports every byte handed out as sent. AsyncHTTPClient stops
    /// asking for chunks once the response is complete, so the request after the last chunk —
    /// where that chunk would be reported — may never come (a progress bar would stop short
    /// of 100 %).
    func reportSent() {
        let count = handed.withLock { $0 }
        if count > 0 { progress?.sent(count) }
    }

    /// How many bytes may be handed out between two waits for the event loops.
    static let catchUpInterval: Int64 = 1 << 20
    /// The same under an idle timeout: the connection asks for no chunk while what was handed
    /// out ahead drains, so up to this much crosses the wire without a report of movement
    /// (1 MiB: 8 s at 1 Mbit/s, more than a short idle limit allows). One hop per event loop
    /// per 64 KiB, for uploads with an idle timeout only.
    static let watchedCatchUpInterval: Int64 = 64 << 10

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let progress: UploadProgressReporter?
        let activity: UploadActivity?
        let eventLoops: any EventLoopGroup
        let handed: Locked<Int64>
        /// The bytes handed to AsyncHTTPClient so far.
        var handedOut: Int64 = 0
        /// `handedOut` at the last wait for the event loops.
        var caughtUpAt: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            if handedOut - caughtUpAt >= (activity == nil ? ByteBufferSequence.catchUpInterval : ByteBufferSequence.watchedCatchUpInterval) {
                caughtUpAt = handedOut
                for loop in eventLoops.makeIterator() {
                    try await loop.submit {}.get()
                }
            }
            // Asked for more: the connection has taken everything handed out before.
            if handedOut > 0 { progress?.sent(handedOut) }
            activity?.moved()
            guard let chunk = try await base.next() else { return nil }
            handedOut += Int64(chunk.count)
            if progress != nil { handed.withLock { $0 = handedOut } }
            return ByteBuffer(bytes: chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        activity?.moved()
        return AsyncIterator(base: body.makeAsyncIterator(), progress: progress, activity: activity, eventLoops: eventLoops, handed: handed)
    }
}

/// AsyncHTTPClient's response body as the byte chunks `HTTPBody` carries, with its errors
/// mapped to ``TransportError``. Abandoning the iteration makes AsyncHTTPClient cancel the
/// request and close the connection.
///
/// AsyncHTTPClient's own deadline ends when the response head arrives, so the request's
/// deadline is enforced here, while the body streams. A silent server is normally cut off by the
/// client's idle read timeout (`HTTPClient.Configuration.timeout.read`); when the deadline comes
/// before that timeout could fire, each wait for a chunk races a timer that ends at the deadline
/// (two child tasks per chunk, so requests with deadlines further away than the read timeout —
/// the default 60 s against 30 s — pay nothing).
///
/// A body in gzip or deflate that the client left encoded is inflated here, a bounded piece
/// per chunk asked for (``ResponseInflater``).
struct ResponseBodySequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let body: HTTPClientResponse.Body
    let deadline: ContinuousClock.Instant
    /// The client's idle read timeout (`nil`: none).
    let readTimeout: Duration?
    /// The coding to inflate here (`gzip` or `deflate`, lowercased), `nil` for none.
    var inflating: String?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let deadline: ContinuousClock.Instant
        let readTimeout: Duration?
        /// The coding to inflate (``inflation`` is made on the first chunk), `nil` for none.
        let inflating: String?
        /// The state of a body inflated here (`nil` until the first chunk, and for every other
        /// body: a plain body's iterator holds nothing more).
        var inflation: Inflation?

        /// A body being inflated: the inflater and the compressed bytes it has not used.
        struct Inflation {
            let inflater: ResponseInflater
            /// Compressed bytes read from the network that zlib has not consumed yet.
            var compressed = ByteBuffer()
            /// Whether any compressed byte has arrived: an empty body is empty, whatever its coding.
            var receivedCompressed = false
            /// Compressed bytes read since the inflater last yielded a byte.
            var compressedSinceOutput = 0
        }

        mutating func next() async throws -> ArraySlice<UInt8>? {
            try await nextBuffer().map { ArraySlice($0.readableBytesView) }
        }

        /// The next chunk: as AsyncHTTPClient delivered it (the transport copies it once, where
        /// it is kept), or inflated from it; `nil` at the end.
        mutating func nextBuffer() async throws -> ByteBuffer? {
            guard let inflating else { return try await nextReceived() }
            // Taken out while in use, so that its buffer is never shared (no copy on write).
            var state = try inflation ?? Inflation(inflater: ResponseInflater(rawDeflateFallback: inflating == "deflate"))
            inflation = nil
            defer { inflation = state }
            while true {
                if let output = try state.inflater.inflate(&state.compressed) {
                    state.compressedSinceOutput = 0
                    return output
                }
                // zlib has used up what was read: read more, only now.
                guard let more = try await nextReceived() else {
                    // Servers label empty bodies (a `201`, a `Content-Length: 0`) with their
                    // usual coding; URLSession accepts them too.
                    if !state.receivedCompressed { return nil }
                    guard state.inflater.isFinished else { throw ResponseInflater.truncated }
                    // A lone `1F` after the end cannot start another gzip member.
                    guard !state.inflater.holdsMagicByte else { throw ResponseInflater.trailingData }
                    return nil
                }
                if more.readableBytes > 0 { state.receivedCompressed = true }
                state.compressedSinceOutput += more.readableBytes
                // Empty blocks or members without end would be read until the deadline.
                if state.compressedSinceOutput > ResponseInflater.silentInputLimit { throw ResponseInflater.silentInput }
                // The inflater leaves nothing unread, but the single first byte of a `deflate`
                // body (see `ResponseInflater.inflate`): that byte comes first. Never a read.
                if state.compressed.readableBytes == 0 {
                    state.compressed = more
                } else {
                    state.compressed.discardReadBytes()
                    var more = more
                    state.compressed.writeBuffer(&more)
                }
            }
        }

        /// The next chunk as AsyncHTTPClient delivered it, or `nil` at the end.
        private mutating func nextReceived() async throws -> ByteBuffer? {
            let buffer: ByteBuffer?
            do {
                if let readTimeout, ContinuousClock.now.advanced(by: readTimeout) <= deadline {
                    buffer = try await base.next()
                } else {
                    buffer = try await nextBeforeDeadline()
                }
            } catch let error as TransportError {
                throw error
            } catch {
                throw AsyncHTTPClientErrors.map(error, timeouts: AsyncHTTPClientErrors.ClientTimeouts(nil, read: readTimeout))
            }
            guard let buffer else { return nil }
            if ContinuousClock.now > deadline {
                throw Self.deadlinePassed
            }
            return buffer
        }

        /// The next chunk, or a timeout error at the deadline — which cancels the wait, and so
        /// the request (AsyncHTTPClient closes the connection).
        private mutating func nextBeforeDeadline() async throws -> ByteBuffer? {
            let lent = LentIterator(iterator: base)
            let deadline = self.deadline
            let (buffer, advanced) = try await withThrowingTaskGroup(of: (ByteBuffer?, LentIterator)?.self) { group in
                group.addTask {
                    var iterator = lent.iterator
                    let buffer = try await iterator.next()
                    return (buffer, LentIterator(iterator: iterator))
                }
                group.addTask {
                    try await SystemTimeSource().sleep(until: deadline)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else { throw Self.deadlinePassed }
                return result
            }
            base = advanced.iterator
            return buffer
        }

        static var deadlinePassed: TransportError {
            TransportError(.timeout, "the deadline passed while the response body was streaming")
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: body.makeAsyncIterator(), deadline: deadline, readTimeout: readTimeout, inflating: inflating)
    }
}

/// AsyncHTTPClient's body iterator handed to the child task that waits for the next chunk, and
/// back. The iterator is not `Sendable` because two tasks must never call `next()` at once; here
/// one task at a time owns it: the parent gives it to the child and waits in the task group until
/// the child has returned it (or has ended, when the deadline won the race).
struct LentIterator: @unchecked Sendable {  // one owner at a time: see above
    var iterator: HTTPClientResponse.Body.AsyncIterator
}
