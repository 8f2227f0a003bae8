import Foundation
import HTTPTypes

/// The SHA-256 a server announces for what it sends (RFC 9530): `Repr-Digest` for the whole
/// selected representation — the same in a `200` and in each `206` — and `Content-Digest` for
/// the bytes of this one message, which is the whole representation only in a `200`.
///
/// Both are Structured Field dictionaries (RFC 8941) of algorithm → byte sequence:
/// `Repr-Digest: sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:, sha-512=:…:`. Only
/// `sha-256` is read (the algorithm the core has; `sha-512` is the only other RFC 9530 keeps
/// active): a field without it, or with a malformed value, announces nothing checkable.
enum RepresentationDigest {
    static let reprDigest = HTTPField.Name("Repr-Digest")!
    static let contentDigest = HTTPField.Name("Content-Digest")!

    /// The SHA-256 of the whole representation `head` announces, as 64 hexadecimal digits:
    /// its `Repr-Digest`, else — for a `200` — its `Content-Digest`. `nil` when it announces
    /// none, or the body is in a content coding (the digest is then of the coded bytes, and the
    /// file holds the decoded ones).
    static func sha256(announcedBy head: HTTPResponse) -> String? {
        if let coding = head.headerFields[.contentEncoding], coding.lowercased() != "identity" { return nil }
        if let value = head.headerFields[reprDigest], let digest = sha256(inField: value) { return digest }
        if head.status.code == 200, let value = head.headerFields[contentDigest] { return sha256(inField: value) }
        return nil
    }

    /// The `sha-256` member of a digest field's value as hexadecimal digits; `nil` without one
    /// or when it is not a 32-byte byte sequence.
    static func sha256(inField value: String) -> String? {
        // Members split at commas by the one reader of HTTP's lists (HTTPParameters); a byte
        // sequence holds no comma, and its base64 `=` padding follows the first `=`.
        for member in HTTPParameters(value, separator: ",") where member.nameIs("sha-256") {
            guard var item = member.value else { return nil }
            // Parameters (`;…`) may follow the item.
            if let semicolon = item.firstIndex(of: ";") { item = item[item.startIndex..<semicolon].trimmingSpacesAndTabs() }
            guard item.count >= 2, item.first == ":", item.last == ":" else { return nil }
            guard let bytes = Data(base64Encoded: String(item.dropFirst().dropLast())), bytes.count == 32 else { return nil }
            return SHA256.hex(Array(bytes))
        }
        return nil
    }
}
