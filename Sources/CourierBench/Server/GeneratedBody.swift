import Hummingbird

/// A response body of any size, generated chunk by chunk as the connection accepts it, so the
/// server holds 64 KiB whatever the size (the transfer probes ask for 256 MiB).
enum GeneratedBody {
    /// The chunk written at a time.
    static let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)

    /// A body of exactly `size` bytes, with its `Content-Length`.
    static func response(size: Int) -> ResponseBody {
        ResponseBody(contentLength: size) { writer in
            var left = size
            while left > 0 {
                let count = min(left, chunk.readableBytes)
                // The writer suspends while the socket is not writable: the server never runs
                // ahead of a client that stops reading.
                try await writer.write(chunk.getSlice(at: chunk.readerIndex, length: count)!)
                left -= count
            }
            try await writer.finish(nil)
        }
    }
}
