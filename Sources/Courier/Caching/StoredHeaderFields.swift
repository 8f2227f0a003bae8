import Foundation
import HTTPTypes

/// Which header fields a cached response keeps, and how a `304` refreshes them (RFC 9111 §3.1,
/// §3.2, §4.3.4) — the part of ``CachingMiddleware`` that edits heads.
enum StoredHeaderFields {
    /// RFC 9111 §3.2: the stored fields, each name the `304` carries replaced by the `304`'s
    /// fields of that name — except framing fields, which describe the `304` itself.
    static func merging(_ stored: HTTPFields, with update: HTTPFields, sensitive: Set<HTTPField.Name> = []) -> HTTPFields {
        // Without sets: a 304 carries a handful of fields, and comparing names costs less than
        // hashing them.
        let incoming: [HTTPField] = storable(update, sensitive: sensitive)
            .filter { field in !notMerged.contains { $0 == field.name } }
        var merged = stored
        merged.replace(with: incoming)
        return merged
    }

    /// `head` without a `Courier-Cache` field: only this middleware may say where a response
    /// came from, never the server.
    static func untagged(_ head: HTTPResponse) -> HTTPResponse {
        guard head.headerFields.has(.courierCache) else { return head }
        var head = head
        head.headerFields[.courierCache] = nil
        return head
    }

    /// The head as stored: without `Set-Cookie` (handled once, when the response arrived),
    /// without hop-by-hop fields — `Connection`, the fields it names (but those the cache decides
    /// by: `Cache-Control`, `Vary`, `ETag`…, see ``endToEnd``), `Keep-Alive`,
    /// `Transfer-Encoding` and the like (RFC 9111 §3.1) — which described that one connection,
    /// and without credential fields (``Redaction/isSensitive(header:extra:)``, with `sensitive`:
    /// the client's ``APIConfiguration/sensitiveHeaders`` and what middleware added to the
    /// context — an access token an API rotates through a response header, a key): a store, on
    /// disk above all, never holds a secret, and a hit never hands back an old token.
    static func storable(_ head: HTTPResponse, sensitive: Set<HTTPField.Name> = []) -> HTTPResponse {
        var stored = head
        stored.headerFields = storable(head.headerFields, sensitive: sensitive)
        return stored
    }

    /// The fields as stored: without those the method above drops.
    static func storable(_ fields: HTTPFields, sensitive: Set<HTTPField.Name> = []) -> HTTPFields {
        // A set: a hostile `Connection` field can name thousands of fields, each compared with
        // every field of the head otherwise.
        var named: Set<String> = []
        for field in fields where field.name == .connection {
            for name in field.value.split(separator: ",") {
                let name = name.trimmingSpacesAndTabs().lowercased()
                // The fields the cache decides by stay: a Connection field naming them (which
                // RFC 9110 §7.6.1 forbids a sender to do) would make the stored head say
                // something else than the one judged storable and fresh (`no-cache` gone, a
                // heuristic day instead).
                if !Self.endToEnd.contains(name) { named.insert(name) }
            }
        }
        func isDropped(_ field: HTTPField) -> Bool {
            let name = field.name.canonicalName
            return isAlwaysDropped(name) || (!named.isEmpty && named.contains(name)) || Redaction.isSensitive(header: field.name, extra: sensitive)
        }
        // Most heads have none of these fields: then they are stored as they are, without a copy.
        guard fields.contains(where: isDropped) else { return fields }
        var stored = fields
        stored.removeAll(where: isDropped)
        return stored
    }

    /// The fields a `Connection` field cannot drop: those the cache stores, matches and judges
    /// freshness by, and those that describe the content.
    private static let endToEnd: Set<String> = [
        "cache-control", "expires", "pragma", "vary", "etag", "last-modified", "date", "age",
        "content-type", "content-length", "content-encoding", "content-location",
    ]

    /// The fields of a `304` that never replace the stored ones: they describe the `304` itself.
    private static let notMerged: [HTTPField.Name] = [.contentLength, .courierCache, .contentEncoding]

    /// The fields never stored (besides those `Connection` names), by canonical name.
    private static let alwaysDropped: Set<String> = ["set-cookie", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"]

    /// The lengths of the ``alwaysDropped`` names, as bits: most names are ruled out by their
    /// length, read inline, before the set hashes them.
    private static let alwaysDroppedLengths: UInt64 = alwaysDropped.reduce(0) { $0 | (1 << UInt64($1.utf8.count)) }

    private static func isAlwaysDropped(_ canonicalName: String) -> Bool {
        let length = canonicalName.utf8.count
        return length < 64 && alwaysDroppedLengths & (1 << UInt64(length)) != 0 && alwaysDropped.contains(canonicalName)
    }
}
