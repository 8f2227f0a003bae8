import CCourierZlib
import Courier
import NIOCore

/// Inflates a gzip or deflate (zlib-wrapped) response body a bounded piece at a time, only as
/// fast as the body is read.
///
/// Written by hand because AsyncHTTPClient's decompression (SwiftNIO's
/// `NIOHTTPResponseDecompressor`) inflates each network read to its end before anyone reads a
/// byte of it: one 64 KiB read of a gzip bomb becomes up to ~66 MiB in memory (deflate's ratio
/// tops out near 1,032:1) before Courier's size limit can count it, per request. Here each call
/// yields at most ``outputLimit`` bytes, and the next network read is asked for only when zlib
/// has used up the last one, so a bomb is stopped by `maxResponseSize` with one compressed read
/// and one output piece in memory.
///
/// Not `Sendable`: one iterator owns it; zlib's stream state lives at a fixed address.
final class ResponseInflater {
    /// The most bytes one call to ``inflate(_:)`` yields.
    static let outputLimit = 64 * 1024
    /// The most compressed bytes accepted in a row that inflate to nothing. Real streams turn
    /// every block into output at once; only headers and empty blocks produce none, and a server
    /// that sends nothing else would otherwise be read until the request's deadline.
    static let silentInputLimit = 1 << 20

    /// zlib's state (heap-allocated: zlib keeps pointers into it).
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether the compressed stream has ended (zlib saw its trailer).
    private(set) var isFinished = false
    /// Whether a body that is neither gzip nor zlib-wrapped may be raw deflate (RFC 1951), as
    /// some servers send for `deflate`: tried once, on the first bytes, as libcurl does.
    private var mayBeRawDeflate: Bool
    /// Whether the last read ended with the first byte (`1F`) of what may be another gzip
    /// member: taken from the input and remembered, so no read is ever kept whole waiting.
    private(set) var holdsMagicByte = false
    /// Whether the body began as gzip (`1F 8B`): only gzip may go on with another member.
    private var beganAsGzip: Bool?
    /// The error thrown, thrown again by every later call: what follows a bad byte is never
    /// decoded.
    private var failure: (any Error)?

    /// A decoder for gzip or zlib-wrapped deflate, told apart by their headers (zlib's automatic
    /// detection, as SwiftNIO's decompressor does for both codings); with `rawDeflateFallback`
    /// (for `Content-Encoding: deflate`), raw deflate too.
    init(rawDeflateFallback: Bool = false) throws {
        mayBeRawDeflate = rawDeflateFallback
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15: the largest window; + 32: accept a gzip or a zlib header.
        let status = CCourierZlib_inflateInit2(stream, 15 + 32)
        // On failure `deinit` still runs and frees `stream` (`inflateEnd` ignores a stream
        // whose initialisation failed).
        guard status == Z_OK else {
            throw TransportError(.other, "the compressed response could not be inflated: zlib could not start (\(Self.describe(status, stream)))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates from the front of `input` (what zlib reads is removed from it) and returns at
    /// most ``outputLimit`` decoded bytes, or `nil` when zlib needs more input (or the stream has
    /// ended and `input` is empty). Throws on data that is not gzip or deflate, and on data after
    /// the end of the stream that does not start another gzip member.
    ///
    /// When it returns `nil`, `input` is empty, except at the very start of a `deflate` body
    /// whose first read is one byte (too short to tell raw deflate from zlib's header).
    func inflate(_ input: inout ByteBuffer) throws -> ByteBuffer? {
        if let failure { throw failure }
        do {
            return try inflateMembers(&input)
        } catch {
            failure = error
            throw error
        }
    }

    /// ``inflate(_:)``, member after member.
    private func inflateMembers(_ input: inout ByteBuffer) throws -> ByteBuffer? {
        if beganAsGzip == nil, stream.pointee.total_in == 0, let first = input.getInteger(at: input.readerIndex, as: UInt8.self) {
            // Neither a zlib header nor raw deflate can begin with 1F.
            beganAsGzip = first == 0x1F
        }
        while true {
            if isFinished {
                guard input.readableBytes > 0 else { return nil }
                // Another gzip member (RFC 1952 §2.2: a gzip file is a series of members)?
                guard beganAsGzip == true else { throw Self.trailingData }
                if !holdsMagicByte {
                    guard input.getInteger(at: input.readerIndex, as: UInt8.self) == 0x1F else { throw Self.trailingData }
                    input.moveReaderIndex(forwardBy: 1)
                    holdsMagicByte = true
                    guard input.readableBytes > 0 else { return nil }   // its second byte is in the next read
                }
                guard input.getInteger(at: input.readerIndex, as: UInt8.self) == 0x8B else { throw Self.trailingData }
                holdsMagicByte = false
                inflateReset(stream)
                isFinished = false
                var magic = ByteBuffer(integer: UInt8(0x1F))
                _ = try inflateOnce(&magic)   // zlib keeps the byte in its state; nothing comes out
            }
            if mayBeRawDeflate, stream.pointee.total_in == 0, input.readableBytes < 2 { return nil }
            let output = try inflateOnce(&input)
            if output.readableBytes > 0 { return output }
            // Nothing came out: zlib needs more input, unless the stream ended with bytes left.
            if !isFinished || input.readableBytes == 0 { return nil }
        }
    }

    /// One call to zlib: at most ``outputLimit`` bytes out of the front of `input`.
    private func inflateOnce(_ input: inout ByteBuffer) throws -> ByteBuffer {
        // Small bodies get a small buffer; a large or highly compressed one fills the limit.
        let capacity = min(Self.outputLimit, max(4096, input.readableBytes.multipliedReportingOverflow(by: 8).partialValue))
        var output = ByteBufferAllocator().buffer(capacity: capacity)
        var status = Z_OK
        var consumed = 0
        _ = try input.withUnsafeReadableBytes { source in
            try output.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { target in
                let space = min(target.count, Self.outputLimit)
                while true {
                    // zlib never writes through `next_in` (its `z_const` is off by default).
                    stream.pointee.next_in = source.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
                    stream.pointee.avail_in = UInt32(clamping: source.count)   // one network read: far below 4 GiB
                    stream.pointee.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_out = UInt32(space)
                    defer {
                        stream.pointee.next_in = nil
                        stream.pointee.avail_in = 0
                        stream.pointee.next_out = nil
                        stream.pointee.avail_out = 0
                    }
                    status = CCourierZlib.inflate(stream, Z_NO_FLUSH)
                    if status == Z_DATA_ERROR, mayBeRawDeflate, stream.pointee.total_out == 0, stream.pointee.total_in <= 2 {
                        // The first two bytes are neither a gzip nor a zlib header: start again
                        // as raw deflate, once (an error after a valid header is reported as is).
                        mayBeRawDeflate = false
                        inflateReset2(stream, -15)
                        continue
                    }
                    consumed = Int(UInt32(clamping: source.count) - stream.pointee.avail_in)
                    switch status {
                    case Z_OK, Z_STREAM_END:
                        break
                    case Z_BUF_ERROR:
                        // No progress possible: zlib needs more input (its output space was not full).
                        break
                    default:
                        throw Self.corrupt(status, stream)
                    }
                    return space - Int(stream.pointee.avail_out)
                }
            }
        }
        input.moveReaderIndex(forwardBy: consumed)
        // Past the header: an error from here on is the data's, not the format's.
        if stream.pointee.total_in > 2 || stream.pointee.total_out > 0 { mayBeRawDeflate = false }
        if status == Z_STREAM_END { isFinished = true }
        return output
    }

    /// zlib's status, with its own message when it gave one.
    private static func describe(_ status: Int32, _ stream: UnsafeMutablePointer<z_stream>) -> String {
        let message = stream.pointee.msg.map { String(cString: $0) }
        let name = switch status {
        case Z_DATA_ERROR: "the data is not valid gzip or deflate"
        case Z_NEED_DICT: "it needs a preset dictionary, which HTTP never supplies"
        case Z_MEM_ERROR: "out of memory"
        case Z_VERSION_ERROR: "the zlib library does not match its headers"
        default: "zlib error \(status)"
        }
        return message.map { "\(name): \(LogSafeText.escape(String($0.prefix(100))))" } ?? name
    }

    /// The error for data zlib cannot inflate.
    static func corrupt(_ status: Int32, _ stream: UnsafeMutablePointer<z_stream>) -> TransportError {
        TransportError(.other, "the compressed response could not be inflated: \(describe(status, stream))")
    }

    /// The error for bytes after the end of the compressed stream.
    static var trailingData: TransportError {
        TransportError(.other, "the compressed response has data after the end of its compressed stream")
    }

    /// The error for a run of compressed bytes that inflates to nothing.
    static var silentInput: TransportError {
        TransportError(.other, "the compressed response sent over \(silentInputLimit >> 20) MiB in a row that inflated to nothing")
    }

    /// The error for a body that ends before its compressed stream does.
    static var truncated: TransportError {
        TransportError(.other, "the compressed response ended before its compressed stream did (truncated)")
    }
}
