import CourierTesting
import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// The representation ``RangeServer`` serves: `size` bytes made from a seed and a version, the
/// same in every process (a child process's server and its parent's serve the very same bytes),
/// built once per process and kept (64 MiB per version), with its SHA-256.
public enum RangeContent {
    private struct Key: Hashable { var seed: UInt64; var version: Int; var size: Int }
    private static let cache = NIOLockedValueBox<[Key: (bytes: ByteBuffer, sha256: [UInt8])]>([:])

    /// The bytes of version `version`.
    public static func bytes(seed: UInt64, version: Int, size: Int) -> ByteBuffer {
        entry(seed: seed, version: version, size: size).bytes
    }

    /// The SHA-256 of version `version`, as 64 hexadecimal digits.
    public static func sha256Hex(seed: UInt64, version: Int, size: Int) -> String {
        hex(entry(seed: seed, version: version, size: size).sha256)
    }

    /// The SHA-256 of version `version`.
    static func sha256(seed: UInt64, version: Int, size: Int) -> [UInt8] {
        entry(seed: seed, version: version, size: size).sha256
    }

    /// The SHA-256 of the file at `url`, read 1 MiB at a time, as 64 hexadecimal digits.
    public static func sha256Hex(ofFile url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty { hasher.update(data: block) }
        return hex(Array(hasher.finalize()))
    }

    private static func entry(seed: UInt64, version: Int, size: Int) -> (bytes: ByteBuffer, sha256: [UInt8]) {
        let key = Key(seed: seed, version: version, size: size)
        if let cached = cache.withLockedValue({ $0[key] }) { return cached }
        // Eight bytes a step of the seeded generator.
        var generator = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: version) &* 0xD1B5_4A32_D192_ED03))
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { raw in
            let words = raw.count / 8
            let base = raw.baseAddress!
            for index in 0..<words {
                base.storeBytes(of: generator.next().littleEndian, toByteOffset: index * 8, as: UInt64.self)
            }
            let last = generator.next()
            for index in (words * 8)..<raw.count { raw[index] = UInt8(truncatingIfNeeded: last >> (index % 8 * 8)) }
        }
        let made = (bytes: ByteBuffer(bytes: bytes), sha256: Array(SHA256.hash(data: bytes)))
        return cache.withLockedValue { cache in
            if let cached = cache[key] { return cached }
            cache[key] = made
            return made
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
