public import Courier
import Crypto
public import Foundation
public import HTTPTypes

/// HMAC-SHA256 over a canonical request, in the spirit of AWS Signature V4:
///
/// ```
/// POST                                    ← method
/// /v1/orders                              ← path, as sent
/// a=1&b=two%20words                       ← query items sorted by name then value, RFC 3986-encoded
/// host:api.example.com                    ← signed headers, lower-case names, sorted, values trimmed
/// x-timestamp:1700000000
///                                         ← empty line
/// host;x-timestamp                        ← signed header names
/// 9f86d081884c7d65…                       ← hex SHA-256 of the body, or UNSIGNED-PAYLOAD
/// ```
///
/// The signature (lower-case hex) goes in `X-Signature`; `X-Timestamp` (Unix seconds) is added
/// and signed so a captured request cannot be replayed later.
///
/// ```swift
/// let signing = SigningMiddleware(.hmacSHA256(HMACRequestSignature(secret: Data(secret.utf8), keyID: "client-7")))
/// ```
public struct HMACRequestSignature: Sendable {
    /// The shared secret.
    public var secret: Data
    /// An identifier of the key, sent in ``keyIDHeader`` when set.
    public var keyID: String?
    /// The header that carries the signature (default `X-Signature`).
    public var signatureHeader: String
    /// The header that carries the timestamp (default `X-Timestamp`; `nil` for none).
    public var timestampHeader: String?
    /// The header that carries the key identifier (default `X-Key-Id`).
    public var keyIDHeader: String
    /// Headers signed besides `host` and the timestamp (when present in the request).
    public var signedHeaders: [String]
    /// Where the timestamp's time comes from (tests inject a `ManualClock`).
    public var clock: any TimeSource

    /// Creates a signature scheme.
    public init(secret: Data, keyID: String? = nil, signatureHeader: String = "X-Signature", timestampHeader: String? = "X-Timestamp",
                keyIDHeader: String = "X-Key-Id", signedHeaders: [String] = ["content-type"], clock: any TimeSource = .system) {
        self.secret = secret
        self.keyID = keyID
        self.signatureHeader = signatureHeader
        self.timestampHeader = timestampHeader
        self.keyIDHeader = keyIDHeader
        self.signedHeaders = signedHeaders
        self.clock = clock
    }

    /// The canonical request text for `request` with body bytes `body` (`nil`: not readable).
    public func canonicalRequest(_ request: HTTPRequest, body: Data?) -> String {
        let target = request.path ?? "/"
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        let items = (URLComponents(string: "http://x" + target)?.percentEncodedQueryItems ?? []).map {
            ($0.name.removingPercentEncoding ?? $0.name, $0.value?.removingPercentEncoding ?? "")
        }.sorted { $0.0 != $1.0 ? Array($0.0.utf8).lexicographicallyPrecedes($1.0.utf8) : Array($0.1.utf8).lexicographicallyPrecedes($1.1.utf8) }
        let query = items.map { QueryEncoding.encode([URLQueryItem(name: $0.0, value: $0.1)]) }.joined(separator: "&")

        var headers: [(String, String)] = []
        if let authority = request.authority { headers.append(("host", authority)) }
        var names = signedHeaders.map { $0.lowercased() }
        if let timestampHeader { names.append(timestampHeader.lowercased()) }
        for name in Set(names) where name != "host" {
            guard let fieldName = HTTPField.Name(name), let value = request.headerFields[fieldName] else { continue }
            headers.append((name, value.trimmingCharacters(in: .whitespaces)))
        }
        headers.sort { Array($0.0.utf8).lexicographicallyPrecedes($1.0.utf8) }
        let payload = body.map { SHA256.hash(data: $0).hex(uppercase: false) } ?? "UNSIGNED-PAYLOAD"
        return ([request.method.rawValue, path, query] + headers.map { "\($0.0):\($0.1)" }
                + ["", headers.map(\.0).joined(separator: ";"), payload]).joined(separator: "\n")
    }

    /// The lower-case hex HMAC-SHA256 of `text` with the secret.
    public func signature(of text: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: secret)).hex(uppercase: false)
    }

    func sign(_ request: inout HTTPRequest, body: Data?) throws {
        if let timestampHeader {
            let field = try HeaderValidation.field(name: timestampHeader, value: String(Int(clock.now().timeIntervalSince1970)))
            request.headerFields[field.name] = field.value
        }
        if let keyID {
            let field = try HeaderValidation.field(name: keyIDHeader, value: keyID)
            request.headerFields[field.name] = field.value
        }
        let field = try HeaderValidation.field(name: signatureHeader, value: signature(of: canonicalRequest(request, body: body)))
        request.headerFields[field.name] = field.value
    }
}
