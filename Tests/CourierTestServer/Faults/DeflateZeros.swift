/// Builds gzip bombs: a gzip member whose deflate data is one fixed-Huffman block of a literal
/// zero followed by back-references (length 258, distance 1), so `n` megabytes of zeros cost
/// about 13 bits per 258 bytes — a 100 MB bomb is about 630 KB on the wire.
///
/// The CRC in the trailer is left at zero: a decoder with a size limit stops long before it
/// would check it, and one without a limit fails at the very end, which is also what a test
/// wants to see.
enum DeflateZeros {
    /// A gzip stream that inflates to `size` zero bytes (rounded up to a multiple of 258, plus one).
    static func gzipBomb(inflatedSize size: Int) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        var writer = BitWriter()
        writer.write(1, bits: 1)        // BFINAL
        writer.write(1, bits: 2)        // BTYPE = 01, fixed Huffman (LSB first)
        writer.writeHuffman(0b0011_0000, length: 8)   // literal 0
        let matches = max(0, (size - 1 + 257) / 258)
        for _ in 0..<matches {
            writer.writeHuffman(0b1100_0101, length: 8)  // length code 285 = 258 bytes
            writer.writeHuffman(0b00000, length: 5)      // distance code 0 = distance 1
        }
        writer.writeHuffman(0b000_0000, length: 7)       // end of block (256)
        out += writer.finish()
        let inflated = UInt32(truncatingIfNeeded: 1 + matches * 258)
        out += [0, 0, 0, 0]                              // CRC-32 (not computed, see above)
        out += withUnsafeBytes(of: inflated.littleEndian, Array.init)
        return out
    }

    /// Writes bits least-significant first, as deflate does; Huffman codes go most-significant first.
    struct BitWriter {
        private var bytes: [UInt8] = []
        private var current: UInt32 = 0
        private var count = 0

        mutating func write(_ value: UInt32, bits: Int) {
            current |= value << UInt32(count)
            count += bits
            while count >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: current))
                current >>= 8
                count -= 8
            }
        }

        mutating func writeHuffman(_ code: UInt32, length: Int) {
            var reversed: UInt32 = 0
            for bit in 0..<length where code & (1 << UInt32(length - 1 - bit)) != 0 {
                reversed |= 1 << UInt32(bit)
            }
            write(reversed, bits: length)
        }

        mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(truncatingIfNeeded: current)); current = 0; count = 0 }
            return bytes
        }
    }
}
