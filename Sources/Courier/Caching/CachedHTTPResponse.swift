import Foundation
import HTTPTypes

/// A response as an ``HTTPCacheStore`` keeps it: the head, the whole body, when it was
/// requested and received, and the request header values its `Vary` field names.
public struct CachedHTTPResponse: Sendable, Equatable {
    /// What the response is filed under.
    public var key: HTTPCacheKey
    /// The response head as received (or as refreshed by a `304 Not Modified`), without
    /// `Set-Cookie` fields: cookies are handled once, when the response arrives.
    public var response: HTTPResponse
    /// The whole body. (Kept as bytes; reading this property copies them into a `Data`.)
    public var body: Data {
        get { Data(bytes) }
        set { bytes = ArraySlice(newValue) }
    }
    /// The whole body as the chunk an `HTTPBody` carries: a stored response is served from it
    /// without copying it (`HTTPBody(Data)` copies the bytes into such a chunk at each hit,
    /// and the caller's collect copies them once more).
    package var bytes: ArraySlice<UInt8>
    /// When the request that fetched it was sent (RFC 9111 `request_time`).
    public var requestDate: Date
    /// When the response was received (RFC 9111 `response_time`).
    public var responseDate: Date
    /// The values the request had for each field the response's `Vary` names, by lowercased
    /// field name; a field the request did not carry is absent, and a credential field
    /// (`Authorization`, `Cookie`, an API key) is kept as a digest of its value:
    /// `hmac-sha256:<hex>` under the key of ``MemoryCacheStore`` or ``DiskCacheStore``,
    /// `sha256:<hex>` for a store of your own.
    public var varyingRequestFields: [String: String]

    /// Creates a stored response.
    public init(key: HTTPCacheKey, response: HTTPResponse, body: Data, requestDate: Date, responseDate: Date,
                varyingRequestFields: [String: String] = [:]) {
        self.init(key: key, response: response, bytes: ArraySlice(body), requestDate: requestDate, responseDate: responseDate,
                  varyingRequestFields: varyingRequestFields)
    }

    /// Creates a stored response from the body's bytes as they are kept.
    package init(key: HTTPCacheKey, response: HTTPResponse, bytes: ArraySlice<UInt8>, requestDate: Date, responseDate: Date,
                 varyingRequestFields: [String: String] = [:]) {
        self.key = key
        self.response = response
        self.bytes = bytes
        self.requestDate = requestDate
        self.responseDate = responseDate
        self.varyingRequestFields = varyingRequestFields
    }

    /// Roughly how many bytes the entry takes: the body, the header fields and the key. Stores
    /// bound their size with it.
    public var cost: Int {
        // The key's length as ``HTTPCacheKey/text`` has it (give or take an escaped newline),
        // without building the text: a store computes this for every entry it keeps.
        let keyLength = key.namespace.utf8.count + key.method.utf8.count + key.url.utf8.count + (key.credentials?.utf8.count ?? 1) + 3
        var total = bytes.count + keyLength + 64
        for field in response.headerFields { total += field.name.rawName.utf8.count + field.value.utf8.count + 4 }
        for (name, value) in varyingRequestFields { total += name.utf8.count + value.utf8.count + 4 }
        return total
    }
}
