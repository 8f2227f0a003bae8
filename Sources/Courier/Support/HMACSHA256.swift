/// HMAC-SHA-256 (RFC 2104, FIPS 198-1): a digest under a secret key, so that whoever reads the
/// digest cannot test guesses of what was digested without the key.
///
/// Hand-written over ``SHA256`` for the same reason that is (the core may not depend on
/// swift-crypto); checked against RFC 4231's test cases. Internal, as ``SHA256`` is.
enum HMACSHA256 {
    /// SHA-256's block size in bytes.
    private static let blockSize = 64

    /// The 32-byte code of `message` under `key`.
    static func code(key: [UInt8], message: some Sequence<UInt8>) -> [UInt8] {
        var block = key.count > blockSize ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = SHA256.digest(block.map { $0 ^ 0x36 } + Array(message))
        return SHA256.digest(block.map { $0 ^ 0x5c } + inner)
    }
}
