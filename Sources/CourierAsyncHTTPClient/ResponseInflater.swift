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

    /// zlib's state (heap-allocated: zlib keeps pointers into it).
    private let stream: UnsafeMutablePointer<z_stream>
    /// Whether the compressed stream has ended (zlib saw its trailer).
    private(set) var isFinished = false

    /// A decoder for gzip or zlib-wrapped deflate, told apart by their headers (zlib's automatic
    /// detection, as SwiftNIO's decompressor does for both codings).
    init() throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15: the largest window; + 32: accept a gzip or a zlib header.
        let status = CCourierZlib_inflateInit2(stream, 15 + 32)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw TransportError(.other, "the compressed response could not be inflated: zlib could not start (\(status))")
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
    /// the end of the stream.
    func inflate(_ input: inout ByteBuffer) throws -> ByteBuffer? {
        if isFinished {
            guard input.readableBytes == 0 else { throw Self.trailingData }
            return nil
        }
        // Small bodies get a small buffer; a large or highly compressed one fills the limit.
        let capacity = min(Self.outputLimit, max(4096, input.readableBytes.multipliedReportingOverflow(by: 8).partialValue))
        var output = ByteBufferAllocator().buffer(capacity: capacity)
        var status = Z_OK
        var consumed = 0
        try input.withUnsafeMutableReadableBytes { source in
            try output.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { target in
                let space = min(target.count, Self.outputLimit)
                stream.pointee.next_in = source.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_in = UInt32(source.count)   // one network read: far below 4 GiB
                stream.pointee.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = UInt32(space)
                defer {
                    stream.pointee.next_in = nil
                    stream.pointee.avail_in = 0
                    stream.pointee.next_out = nil
                    stream.pointee.avail_out = 0
                }
                status = CCourierZlib.inflate(stream, Z_NO_FLUSH)
                consumed = source.count - Int(stream.pointee.avail_in)
                switch status {
                case Z_OK, Z_STREAM_END:
                    break
                case Z_BUF_ERROR:
                    // No progress possible: zlib needs more input (its output space was not full).
                    break
                default:
                    throw Self.corrupt(status)
                }
                return space - Int(stream.pointee.avail_out)
            }
        }
        input.moveReaderIndex(forwardBy: consumed)
        if status == Z_STREAM_END {
            isFinished = true
            if input.readableBytes > 0 { throw Self.trailingData }
        }
        return output.readableBytes > 0 ? output : nil
    }

    /// The error for data zlib cannot inflate.
    static func corrupt(_ status: Int32) -> TransportError {
        let reason = status == Z_DATA_ERROR ? "the data is not valid gzip or deflate" : "zlib error \(status)"
        return TransportError(.other, "the compressed response could not be inflated: \(reason)")
    }

    /// The error for bytes after the end of the compressed stream.
    static var trailingData: TransportError {
        TransportError(.other, "the compressed response has data after the end of its compressed stream")
    }

    /// The error for a body that ends before its compressed stream does.
    static var truncated: TransportError {
        TransportError(.other, "the compressed response ended before its compressed stream did (truncated)")
    }
}
