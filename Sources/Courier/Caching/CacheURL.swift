/// The one spelling a cache key gives a URL, so that every way of writing the same resource
/// finds the same entries: the middleware files a response under the request's own spelling
/// (`https://API.example.com:443/users/J%C3%B6rg`, from a base URL written that way), and an app
/// purges it with the URL as it writes it (`https://api.example.com/users/Jörg`). Both go
/// through ``normalised(_:completingPath:)``: ``HTTPCacheKey``'s URL, invalidation after an
/// unsafe request, and the purge helpers of ``HTTPCacheStore``.
///
/// The rewriting is the equivalence RFC 3986 §6.2.2–§6.2.3 and RFC 9110 §4.2.3 define, and
/// nothing more:
/// - the scheme and the host in lower case;
/// - the scheme's default port (`:443` for https, `:80` for http), or an empty one, left out;
/// - an empty path written `/`;
/// - an escaped unreserved character (`%7E`, `%75`) decoded; every other escape in upper case
///   (`%c3` → `%C3`);
/// - a byte a URI cannot hold as it is (non-ASCII text, a space, `"`, `<`, `{`…) percent-encoded
///   as UTF-8, as a URL written with `Jörg` is sent;
/// - a `#fragment` dropped: no request carries one.
///
/// A reserved character and its escape stay apart (`/users/a%2Fb` is not `/users/a/b`), and
/// so do the query's order and its `+`: servers read those differently.
enum CacheURL {
    /// `url` in its one spelling (see the type). Text that is not `scheme://…` comes back as it
    /// is. A prefix of a URL is normalised with `completingPath` false: it may end inside the
    /// authority (`https://api.example.co`), where a `/` must not be added.
    static func normalised(_ url: String, completingPath: Bool = true) -> String {
        var text = url
        // A native string is contiguous already: this copies nothing then.
        text.makeContiguousUTF8()
        // Scanned as bytes, and copied only from the first byte that changes: a URL already in
        // its spelling (every request Courier builds from a base URL in lower case) costs one
        // scan and no allocation.
        guard let outcome = text.utf8.withContiguousStorageIfAvailable({ normalised($0, completingPath: completingPath) }),
              let rewritten = outcome else { return url }
        return rewritten
    }

    /// The rewritten text, or `nil` when `bytes` are in their spelling already.
    private static func normalised(_ bytes: UnsafeBufferPointer<UInt8>, completingPath: Bool) -> String? {
        let count = bytes.count
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon + 2 < count,
              bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else { return nil }
        var writer = Writer(source: bytes)
        for index in 0..<colon where isUppercase(bytes[index]) {
            writer.replace(index..<index + 1, with: CollectionOfOne(bytes[index] | 0x20))
        }
        let defaultPort: Int? = isScheme(bytes, end: colon, "https") ? 443 : isScheme(bytes, end: colon, "http") ? 80 : nil

        // The authority: `[userinfo@]host[:port]`, up to the path, the query or the fragment.
        let authorityStart = colon + 3
        var authorityEnd = authorityStart
        while authorityEnd < count, !isAuthorityEnd(bytes[authorityEnd]) { authorityEnd += 1 }
        var hostStart = authorityStart
        for index in authorityStart..<authorityEnd where bytes[index] == UInt8(ascii: "@") { hostStart = index + 1 }
        var portColon: Int?
        if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
            // An IPv6 literal holds colons of its own: a port comes after its closing bracket.
            if let close = (hostStart..<authorityEnd).first(where: { bytes[$0] == UInt8(ascii: "]") }),
               close + 1 < authorityEnd, bytes[close + 1] == UInt8(ascii: ":") {
                portColon = close + 1
            }
        } else {
            portColon = (hostStart..<authorityEnd).first { bytes[$0] == UInt8(ascii: ":") }
        }
        for index in hostStart..<(portColon ?? authorityEnd) where isUppercase(bytes[index]) {
            writer.replace(index..<index + 1, with: CollectionOfOne(bytes[index] | 0x20))
        }
        if let portColon, let defaultPort {
            let digits = (portColon + 1)..<authorityEnd
            var port = -1
            if digits.count <= 5, digits.allSatisfy({ isDigit(bytes[$0]) }) {
                port = 0
                for digit in digits { port = port * 10 + Int(bytes[digit] - UInt8(ascii: "0")) }
            }
            if digits.isEmpty || port == defaultPort {
                writer.replace(portColon..<authorityEnd, with: EmptyCollection<UInt8>())
            }
        }

        // The path, the query and the fragment.
        var position = authorityEnd
        if completingPath, position == count || bytes[position] != UInt8(ascii: "/") {
            writer.replace(position..<position, with: CollectionOfOne(UInt8(ascii: "/")))
        }
        while position < count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "#") {
                writer.replace(position..<count, with: EmptyCollection<UInt8>())
                break
            }
            if byte == UInt8(ascii: "%"), position + 2 < count, let high = hexValue(bytes[position + 1]), let low = hexValue(bytes[position + 2]) {
                let value = high << 4 | low
                if isUnreserved(value) {
                    writer.replace(position..<position + 3, with: CollectionOfOne(value))
                } else if isLowercaseHexLetter(bytes[position + 1]) || isLowercaseHexLetter(bytes[position + 2]) {
                    writer.replace(position..<position + 3, with: [UInt8(ascii: "%"), hexDigits[Int(high)], hexDigits[Int(low)]])
                }
                position += 3
                continue
            }
            // A `%` that starts no escape is kept: a prefix may end in the middle of one.
            if byte != UInt8(ascii: "%"), !isURIByte(byte) {
                writer.replace(position..<position + 1, with: [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            }
            position += 1
        }
        return writer.finish()
    }

    /// The output, made only when a byte changes: until then it is the source itself.
    private struct Writer {
        let source: UnsafeBufferPointer<UInt8>
        private var output: [UInt8]?
        /// The source bytes before this index are in ``output`` (or unchanged, without one).
        private var copied = 0

        init(source: UnsafeBufferPointer<UInt8>) {
            self.source = source
        }

        /// Writes `replacement` instead of the source bytes in `range`; ranges come in order.
        mutating func replace(_ range: Range<Int>, with replacement: some Sequence<UInt8>) {
            if output == nil {
                var fresh: [UInt8] = []
                fresh.reserveCapacity(source.count + 16)
                output = fresh
            }
            output?.append(contentsOf: source[copied..<range.lowerBound])
            output?.append(contentsOf: replacement)
            copied = range.upperBound
        }

        /// The rewritten text, or `nil` when nothing changed.
        func finish() -> String? {
            guard var output = self.output else { return nil }
            output.append(contentsOf: source[copied...])
            return String(decoding: output, as: UTF8.self)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Whether the scheme (the bytes before `end`) is `name`, in any case.
    private static func isScheme(_ bytes: UnsafeBufferPointer<UInt8>, end: Int, _ name: String) -> Bool {
        end == name.utf8.count && zip(bytes[0..<end], name.utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    private static func isAuthorityEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    private static func isUppercase(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isLowercaseHexLetter(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// `ALPHA / DIGIT / "-" / "." / "_" / "~"` (RFC 3986 §2.3): escaped or not, the same.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A byte a URI holds as it is: unreserved, or a delimiter (RFC 3986 §2.2).
    private static func isURIByte(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        switch byte {
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"),
             UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}
