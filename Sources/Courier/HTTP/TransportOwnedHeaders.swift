import HTTPTypes

/// The header fields that frame the message or manage the connection: they belong to the
/// transport, never to the request.
///
/// A caller-set `Content-Length` that disagrees with the body lets the body carry a second
/// request that the server parses as its own (request smuggling); `Transfer-Encoding`,
/// `Connection`, `Upgrade`, `Host` and the others change how a server or proxy reads the
/// stream. Server-side apps that forward inbound headers would pass them on without noticing.
/// Courier refuses a request that carries one, on every transport, with an
/// ``InvalidHeaderError`` naming the field (an ``APIError`` of kind ``APIError/Kind/encodingFailed``),
/// before anything is sent. The transports compute the framing from the body.
package enum TransportOwnedHeaders {
    /// The names refused, lowercased: `Content-Length`, `Transfer-Encoding`, `Connection`,
    /// `Keep-Alive`, `TE`, `Trailer`, `Upgrade`, `Host`, and every `Proxy-*` field.
    package static let names: [String] = [
        "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "host", "proxy-*",
    ]

    /// Whether a field name belongs to the transport.
    package static func contains(_ name: HTTPField.Name) -> Bool {
        let name = name.canonicalName
        // Every field of every request comes through here: most names are ruled out by their
        // first byte and length together, read inline, before any string comparison (a `switch`
        // over strings compares with each case in turn, for every field; by length
        // alone `User-Agent`, sent with every request, looked like `Connection`).
        guard let first = name.utf8.first else { return false }
        if first == UInt8(ascii: "p") { return name.utf8.starts(with: "proxy-".utf8) }
        let length = name.utf8.count
        guard length < 64, exactLengths[Int(first & 0x7F)] & (1 << UInt64(length)) != 0 else { return false }
        switch name {
        case "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "host":
            return true
        default:
            return false
        }
    }

    /// For each first byte (ASCII), the lengths of the names refused exactly that start with
    /// it, as bits.
    private static let exactLengths: [UInt64] = names.filter { !$0.hasSuffix("*") }.reduce(into: [UInt64](repeating: 0, count: 128)) { lengths, name in
        lengths[Int(name.utf8.first! & 0x7F)] |= 1 << UInt64(name.utf8.count)
    }

    /// Throws ``InvalidHeaderError`` for the first field that belongs to the transport.
    package static func check(_ fields: HTTPFields) throws {
        for field in fields where contains(field.name) {
            throw InvalidHeaderError(
                name: field.name.rawName,
                reason: "framing and connection fields are set by the transport from the body, never by the request (a caller-set one can smuggle a second request); remove it")
        }
    }
}
