/// RFC 3986 percent-encoding, written over UTF-8 bytes so the common case (nothing to encode)
/// costs one scan and no allocation.
enum PercentEncoding {
    /// Which bytes are kept as they are.
    struct Allowed: Sendable {
        var table: [Bool]

        /// `ALPHA / DIGIT / "-" / "." / "_" / "~"` — everything else is encoded.
        static let unreserved = Allowed(extra: "")
        /// Characters allowed in a path (unreserved, sub-delims, `:`, `@`, `/`), and `%` so that
        /// existing escapes are kept.
        static let path = Allowed(extra: "!$&'()*+,;=:@/%")
        /// Characters allowed in a query written by hand, and `%`.
        static let query = Allowed(extra: "!$&'()*+,;=:@/?%")

        init(extra: String) {
            var table = [Bool](repeating: false, count: 256)
            for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { table[Int(byte)] = true }
            for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { table[Int(byte)] = true }
            for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { table[Int(byte)] = true }
            for byte in "-._~".utf8 { table[Int(byte)] = true }
            for byte in extra.utf8 { table[Int(byte)] = true }
            self.table = table
        }
    }

    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// `string` with every byte not in `allowed` written as `%XX`.
    static func encode(_ string: String, allowing allowed: Allowed, spaceAsPlus: Bool = false) -> String {
        let utf8 = string.utf8
        let needsWork = utf8.withContiguousStorageIfAvailable { buffer in
            buffer.contains { !allowed.table[Int($0)] }
        } ?? utf8.contains { !allowed.table[Int($0)] }
        if !needsWork { return string }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if allowed.table[Int(byte)] {
                out.append(byte)
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
