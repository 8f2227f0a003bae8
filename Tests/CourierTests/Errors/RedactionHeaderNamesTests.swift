import Courier
import HTTPTypes
import Testing

/// The one list of secret header names, which redaction and cross-origin redirects share.
@Suite("Redaction: secret header names")
struct RedactionHeaderNamesTests {
    @Test("API-key, token, signature and ticket headers are secret; ordinary ones are not",
          arguments: ["Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "X-Amz-Security-Token", "X-Signature", "X-Hub-Signature-256",
                      "Ocp-Apim-Subscription-Key", "X-Functions-Key", "X-Goog-Api-Key", "Sign", "pub_sign", "pub_ticket", "X-Ms-Authorization"])
    func secret(_ name: String) {
        #expect(Redaction.isSensitive(header: HTTPField.Name(name)!))
    }

    @Test("ordinary headers are not", arguments: ["Accept", "Content-Type", "X-Request-Id", "User-Agent", "X-Timestamp", "Design"])
    func ordinary(_ name: String) {
        #expect(!Redaction.isSensitive(header: HTTPField.Name(name)!))
    }

    @Test("names a client adds count")
    func added() {
        let name = HTTPField.Name("X-Partner-Id")!
        #expect(!Redaction.isSensitive(header: name))
        #expect(Redaction.isSensitive(header: name, extra: [name]))
    }
}
