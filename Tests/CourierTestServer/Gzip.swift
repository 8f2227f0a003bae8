/// A tiny gzip (RFC 1952) encoder used by `GET /gzip`.
///
/// Foundation on Linux has no compression API and the test server must not depend on
/// anything but Hummingbird, so this writes the deflate stream (RFC 1951) with *stored*
/// blocks only: each block is the 3-bit header `BFINAL, BTYPE=00`, padding to a byte, then
/// `LEN` and `NLEN` (little-endian) and up to 65,535 raw bytes. Nothing gets smaller, but the
/// result is valid gzip that every decoder (zlib, URLSession, AsyncHTTPClient, `gunzip`)
/// accepts, which is all a client test needs.
enum Gzip {
    /// Wraps `input` in a gzip member: header, stored deflate blocks, CRC-32 and size.
    static func compress(_ input: [UInt8]) -> [UInt8] {
        // Header: magic, CM=8 (deflate), no flags, MTIME=0, XFL=0, OS=255 (unknown).
        var output: [UInt8] = [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]
        output.reserveCapacity(input.count + input.count / 65_535 * 5 + 23)
        var offset = 0
        repeat {
            let length = min(65_535, input.count - offset)
            let isFinal = offset + length == input.count
            output.append(isFinal ? 0x01 : 0x00)  // BFINAL, BTYPE=00 (stored)
            appendLittleEndian(UInt16(length), to: &output)
            appendLittleEndian(~UInt16(length), to: &output)
            output.append(contentsOf: input[offset..<offset + length])
            offset += length
        } while offset < input.count
        appendLittleEndian(crc32(input), to: &output)
        appendLittleEndian(UInt32(truncatingIfNeeded: input.count), to: &output)
        return output
    }

    /// The CRC-32 (IEEE 802.3, reflected polynomial `0xEDB88320`) of `bytes`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xff)] ^ (crc >> 8)
        }
        return ~crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xedb8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to output: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) }
    }
}
