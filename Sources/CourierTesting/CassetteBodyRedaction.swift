import Courier
import Foundation

/// Hides the values of secret fields in recorded JSON and form bodies, as vcrpy's
/// `filter_post_data_parameters` and Betamax's placeholders do, but on by default.
///
/// A field is secret when its name is one ``Courier/Redaction/isSensitive(name:)`` or
/// ``Courier/Redaction/QueryNames/standard`` calls secret (`password`, `access_token`,
/// `refresh_token`, `client_secret`, `id_token`, `api_key`, `secret`, `sig`…), one of a few
/// more (`otp`, `pin`, `cvv`…), or one the recorder was given — the rule `LoggingMiddleware`
/// applies to logged bodies too. Its value, whatever its type, becomes `"<redacted>"`.
struct CassetteBodyRedaction: Sendable {

    /// Names added by the user, lowercased.
    let added: Set<String>

    init(adding names: Set<String>) {
        self.added = Set(names.map { $0.lowercased() })
    }

    func isSecret(_ name: String) -> Bool {
        Redaction.isSecretBodyField(name, extra: added)
    }

    /// `data` with its secret fields redacted when it is a JSON document (by content type, or
    /// by its first character) or a form. Any other UTF-8 text that holds JSON members — JSON
    /// behind a prefix (`)]}'`, a byte-order mark), NDJSON, an event stream, JSONP, a document
    /// cut short, JSON inside HTML — has its secret members redacted by the JSON pass of the
    /// scan logs use; the rest of such text (an HTML page's links, a CSV) is kept as it is.
    func redact(_ data: Data, contentType: String?) -> Data {
        guard !data.isEmpty else { return data }
        let type = contentType.flatMap(MediaType.init)
        if type?.essence == "application/x-www-form-urlencoded" { return redactForm(data) }
        // By its first character whatever its type: servers send JSON as text/plain or
        // text/html too.
        let isJSON = type?.isJSON == true || Self.startsLikeJSON(data)
        if isJSON, let redacted = redactJSON(data) { return redacted }
        guard let text = String(data: data, encoding: .utf8), text.contains("\"") else { return data }
        let scanned = Redaction.BodyText.redactJSONMembers(text, extra: added)
        return scanned == text ? data : Data(scanned.utf8)
    }

    /// Whether the body starts as JSON does — `{` or `[` — after white space, a byte-order mark
    /// and an anti-hijacking prefix (`)]}'`, `while(1);`).
    static func startsLikeJSON(_ data: Data) -> Bool {
        var bytes = data[...]
        func skipSpace() { bytes = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 } }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        skipSpace()
        for prefix in [")]}'", "while(1);", "for(;;);"] where bytes.starts(with: prefix.utf8) {
            bytes = bytes.dropFirst(prefix.utf8.count)
            if bytes.first == UInt8(ascii: ",") { bytes = bytes.dropFirst() }
            skipSpace()
        }
        return bytes.first == UInt8(ascii: "{") || bytes.first == UInt8(ascii: "[")
    }

    /// The values of the secret fields of a JSON or form body (strings and numbers, as text), so
    /// that an answer that echoes them can be scrubbed too.
    func secretValues(in data: Data, contentType: String?) -> [String] {
        guard !data.isEmpty else { return [] }
        let type = contentType?.lowercased() ?? ""
        var found: [String] = []
        if type.hasPrefix("application/x-www-form-urlencoded"), let text = String(data: data, encoding: .utf8) {
            for pair in text.split(separator: "&") {
                guard let eq = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<eq].replacingOccurrences(of: "+", with: " ")
                guard isSecret(name.removingPercentEncoding ?? name) else { continue }
                let value = pair[pair.index(after: eq)...].replacingOccurrences(of: "+", with: " ")
                found.append(value.removingPercentEncoding ?? value)
            }
        } else if let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
            collect(object, into: &found)
        }
        return found
    }

    private func collect(_ value: Any, into found: inout [String]) {
        if let object = value as? [String: Any] {
            for (key, member) in object {
                if isSecret(key), let text = member as? String ?? (member as? NSNumber).map({ "\($0)" }) {
                    found.append(text)
                } else {
                    collect(member, into: &found)
                }
            }
        } else if let array = value as? [Any] {
            for element in array { collect(element, into: &found) }
        }
    }

    /// A JSON document re-encoded (sorted keys) when a secret member was found at any depth;
    /// untouched otherwise; `nil` when it does not parse.
    private func redactJSON(_ data: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        var changed = false
        let redacted = redact(object, changed: &changed)
        guard changed, let out = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return data }
        return out
    }

    private func redact(_ value: Any, changed: inout Bool) -> Any {
        if let object = value as? [String: Any] {
            var copy: [String: Any] = [:]
            for (key, member) in object {
                if isSecret(key) {
                    copy[key] = Redaction.placeholder
                    changed = true
                } else {
                    copy[key] = redact(member, changed: &changed)
                }
            }
            return copy
        }
        if let array = value as? [Any] { return array.map { redact($0, changed: &changed) } }
        return value
    }

    /// `name=value&…` with secret values replaced; order, other pairs and their encoding kept.
    private func redactForm(_ data: Data) -> Data {
        guard let text = String(data: data, encoding: .utf8) else { return data }
        var changed = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let eq = pair.firstIndex(of: "=") else { return pair }
            let raw = pair[..<eq].replacingOccurrences(of: "+", with: " ")
            guard isSecret(raw.removingPercentEncoding ?? raw) else { return pair }
            changed = true
            return pair[...eq] + Redaction.placeholder
        }
        return changed ? Data(pairs.joined(separator: "&").utf8) : data
    }
}
