import Foundation

extension Redaction {
    /// Which query parameters carry secrets, for errors, logs and recordings: the names Courier
    /// knows (``standard``), plus the ones you add.
    ///
    /// A name is secret when, compared case-insensitively after percent-decoding, it
    /// - is one of ``exactNames``: the pre-signed URL families (AWS SigV2/SigV4 query
    ///   authentication `AWSAccessKeyId`, `Signature`, `X-Amz-Signature`, `X-Amz-Credential`,
    ///   `X-Amz-Security-Token`; Google Cloud Storage `GoogleAccessId`, `X-Goog-Signature`,
    ///   `X-Goog-Credential`; Azure SAS `sig`; CloudFront `Key-Pair-Id`), OpenTelemetry's `url.full`
    ///   list (`AWSAccessKeyId`, `Signature`, `sig`, `X-Goog-Signature`), signed-parameter APIs' `sign`,
    ///   `pub_sign`, `ticket`, `pub_ticket`, and the names you add — short names are matched
    ///   exactly, so `design` or `assign` stay visible;
    /// - or contains one of ``Redaction/sensitiveNameFragments`` (`token`, `secret`, `password`,
    ///   `signature`, `credential`…).
    ///
    /// Azure SAS fields other than `sig` (`se`, `sp`, `sv`, `sr`) say what the signature allows
    /// and until when; they are not secret and stay visible.
    ///
    /// ```swift
    /// let names = Redaction.QueryNames.standard.adding(["key"])   // Google API keys
    /// names.redact(url: "https://maps.example.com/geo?key=AIza…")  // …?key=<redacted>
    /// ```
    public struct QueryNames: Sendable, Hashable {
        /// The names matched exactly, lowercased.
        public private(set) var exactNames: Set<String>

        /// The names Courier treats as secret by default.
        public static let standard = QueryNames(exactNames: [
            // AWS query authentication (S3 pre-signed URLs): SigV2 and SigV4; CloudFront signed URLs.
            "awsaccesskeyid", "signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token", "key-pair-id",
            // Google Cloud Storage signed URLs, V2 and V4.
            "googleaccessid", "x-goog-signature", "x-goog-credential",
            // Azure shared access signatures.
            "sig",
            // Signed-parameter APIs' signature and ticket (the MD5 signing middleware adds `pub_sign`).
            "sign", "pub_sign", "pubsign", "ticket", "pub_ticket", "pubticket",
            // Other common credentials in URLs.
            "auth", "jwt", "pwd", "code_verifier",
        ])

        private init(exactNames: Set<String>) { self.exactNames = exactNames }

        /// These names plus `names` (compared case-insensitively, exactly).
        public func adding(_ names: some Sequence<String>) -> QueryNames {
            var copy = self
            for name in names { copy.exactNames.insert(name.lowercased()) }
            return copy
        }

        /// Whether a (decoded) parameter name carries a secret.
        public func contains(_ name: String) -> Bool {
            exactNames.contains(name.lowercased()) || Redaction.isSensitive(name: name)
        }

        /// A request target (`/path?query`) with the values of secret parameters replaced by
        /// ``Redaction/placeholder``; everything else is kept byte for byte. A `#fragment` is
        /// read the same way: OAuth's implicit flow sends its tokens there
        /// (`Location: https://app.example/cb#access_token=…`).
        public func redact(target: String) -> String {
            let hash = target.firstIndex(ofByte: UInt8(ascii: "#"))
            let beforeFragment = hash.map { target[..<$0] } ?? target[...]
            let mark = beforeFragment.utf8.firstIndex(of: UInt8(ascii: "?"))
            guard mark != nil || hash != nil else { return target }
            var changed = false
            var result = String(beforeFragment[..<(mark ?? beforeFragment.endIndex)])
            if let mark {
                result += "?" + redactPairs(beforeFragment[beforeFragment.index(after: mark)...], changed: &changed)
            }
            if let hash {
                result += "#" + redactPairs(target[target.index(after: hash)...], changed: &changed)
            }
            return changed ? result : target
        }

        /// `a=1&token=x` with the values of secret names replaced; `changed` set when one was.
        private func redactPairs(_ pairs: Substring, changed: inout Bool) -> String {
            var parts: [Substring] = []
            var redacted = false
            for item in pairs.split(separator: "&", omittingEmptySubsequences: false) {
                if let eq = item.firstIndex(of: "=") {
                    let raw = String(item[..<eq])
                    if contains(raw.removingPercentEncoding ?? raw) {
                        parts.append(item[...eq] + Redaction.placeholder)
                        redacted = true
                        continue
                    }
                }
                parts.append(item)
            }
            guard redacted else { return String(pairs) }
            changed = true
            return parts.joined(separator: "&")
        }

        /// A URL string with `user:password@` replaced and secret query values redacted, for
        /// URLs that came from elsewhere (a `Location` header, a response body, a configuration file).
        public func redact(url: String) -> String {
            var text = url
            if let schemeEnd = text.range(of: "://") {
                let authorityStart = schemeEnd.upperBound
                let authorityEnd = text[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
                if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
                    text.replaceSubrange(authorityStart...at, with: Redaction.placeholder + "@")
                }
            }
            return redact(target: text)
        }
    }
}
