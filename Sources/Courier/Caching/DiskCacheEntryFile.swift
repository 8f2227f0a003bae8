import Foundation
import HTTPTypes

/// The format of one ``DiskCacheStore`` entry file:
///
/// 1. the magic line `CourierHTTPCache 1\n` (the number is the format version);
/// 2. the length of the metadata, 4 bytes big-endian;
/// 3. the metadata, JSON: key, status, reason phrase, header fields as ordered
///    `[name, value]` pairs, request and response dates, the `Vary` request values and the
///    body length;
/// 4. the body, exactly as many bytes as the metadata says, and nothing after it.
///
/// Decoding checks every one of these, so a truncated, padded or foreign file is rejected
/// without reading its body, and nothing in a file can make the reader allocate more than the
/// file's own size.
enum DiskCacheEntryFile {
    /// The first bytes of every entry file.
    static let magic = Array("CourierHTTPCache 1\n".utf8)
    /// Magic line plus the metadata length field.
    static let prefixSize = magic.count + 4
    /// The largest metadata block written or read (a `Vary` naming 1,000 fields fits easily).
    static let maxMetadataBytes = 8 << 20

    /// Everything but the body.
    struct Metadata: Codable {
        var key: HTTPCacheKey
        var status: Int
        var reasonPhrase: String
        /// `[name, value]` pairs in the order the response had them (names as received).
        var headerFields: [[String]]
        /// `Date.timeIntervalSinceReferenceDate`, which round-trips a `Date` exactly.
        var requestDate: Double
        var responseDate: Double
        var varyingRequestFields: [String: String]
        var bodyLength: Int
    }

    /// The bytes before the body, or `nil` when the metadata cannot be encoded or is larger
    /// than ``maxMetadataBytes``.
    static func prefixAndMetadata(for entry: CachedHTTPResponse) -> Data? {
        let metadata = Metadata(
            key: entry.key,
            status: entry.response.status.code,
            reasonPhrase: entry.response.status.reasonPhrase,
            headerFields: entry.response.headerFields.map { [$0.name.rawName, $0.value] },
            requestDate: entry.requestDate.timeIntervalSinceReferenceDate,
            responseDate: entry.responseDate.timeIntervalSinceReferenceDate,
            varyingRequestFields: entry.varyingRequestFields,
            bodyLength: entry.bytes.count
        )
        guard let json = try? JSONEncoder().encode(metadata), json.count <= maxMetadataBytes else { return nil }
        var data = Data(capacity: prefixSize + json.count)
        data.append(contentsOf: magic)
        let length = UInt32(json.count)
        data.append(contentsOf: [UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16),
                                 UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)])
        data.append(json)
        return data
    }

    /// The metadata length a file's first ``prefixSize`` bytes announce, or `nil` when they do
    /// not start with the magic line or announce more than the file (of `fileSize` bytes) holds.
    static func metadataLength(prefix: Data, fileSize: Int) -> Int? {
        guard prefix.count == prefixSize, prefix.starts(with: magic) else { return nil }
        let bytes = Array(prefix.suffix(4))
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard length > 0, length <= maxMetadataBytes, length <= fileSize - prefixSize else { return nil }
        return length
    }

    /// The decoded metadata, or `nil` when it is not valid JSON of the expected shape or its
    /// body length does not account for exactly the rest of the file.
    static func metadata(from json: Data, fileSize: Int) -> Metadata? {
        // `bodyLength` is read from the file: checked against what is left before any sum,
        // so a tampered `Int.max` is a miss, not an arithmetic trap.
        guard let metadata = try? JSONDecoder().decode(Metadata.self, from: json),
              metadata.bodyLength >= 0,
              metadata.bodyLength == fileSize - prefixSize - json.count else { return nil }
        return metadata
    }

    /// The stored response, or `nil` when the metadata holds a status, a field name or a number
    /// of fields that no response can have (a file from a tampered or damaged disk).
    static func response(from metadata: Metadata, body: Data) -> CachedHTTPResponse? {
        guard (100...999).contains(metadata.status), body.count == metadata.bodyLength,
              metadata.requestDate.isFinite, metadata.responseDate.isFinite,
              // More fields than a response may have: a tampered file (or one no transport could
              // have produced), never served — building it could reach `HTTPFields`' capacity.
              metadata.headerFields.count <= HTTPFields.responseFieldLimit else { return nil }
        var fields = HTTPFields()
        fields.reserveCapacity(metadata.headerFields.count)
        for pair in metadata.headerFields {
            guard pair.count == 2, let name = HTTPField.Name(pair[0]) else { return nil }
            fields.append(HTTPField(name: name, value: pair[1]))
        }
        let response = HTTPResponse(status: .init(code: metadata.status, reasonPhrase: metadata.reasonPhrase), headerFields: fields)
        return CachedHTTPResponse(
            key: metadata.key,
            response: response,
            body: body,
            requestDate: Date(timeIntervalSinceReferenceDate: metadata.requestDate),
            responseDate: Date(timeIntervalSinceReferenceDate: metadata.responseDate),
            varyingRequestFields: metadata.varyingRequestFields
        )
    }
}
