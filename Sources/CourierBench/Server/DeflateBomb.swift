import CCourierZlib
import Foundation

/// Decompression bombs for the transfer probes: runs of zeros deflated by zlib at its best
/// ratio (~1,000:1), so the wire carries a few hundred KiB and the client has to inflate the rest.
enum DeflateBomb {
    /// `size` zero bytes, compressed (zlib format, RFC 1950). The zeros are `calloc`'d: pages that
    /// are only read stay the kernel's shared zero page, so the server does not hold `size` bytes.
    static func zeros(_ size: Int) throws -> [UInt8] {
        guard let zeros = calloc(max(size, 1), 1) else { throw OptionsError("cannot allocate \(size) bytes") }
        defer { free(zeros) }
        // Zeros shrink ~1,000:1: a buffer of a 500th (and 64 KiB) is ample, and a bound of the
        // whole size would itself hold `size` bytes.
        var length = uLong(size / 500 + 65_536)
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { target in
            compress2(target.baseAddress, &length, zeros.assumingMemoryBound(to: Bytef.self), uLong(size), Z_BEST_COMPRESSION)
        }
        guard status == Z_OK else { throw OptionsError("zlib could not compress the bomb (\(status))") }
        return Array(output.prefix(Int(length)))
    }
}
