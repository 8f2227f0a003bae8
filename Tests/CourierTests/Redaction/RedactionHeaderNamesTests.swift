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

/// The byte-level name check agrees with its definition: the lowercased name contains a fragment.
@Suite("Redaction: secret-looking names")
struct RedactionSensitiveNameTests {
    /// The definition, spelled the slow way.
    private func reference(_ name: String) -> Bool {
        let lower = name.lowercased()
        return Redaction.sensitiveNameFragments.contains { lower.contains($0) }
    }

    @Test("agrees with lowercased-contains on ASCII, mixed case, edges and non-ASCII names",
          arguments: ["", "t", "tok", "token", "TOKEN", "x-Auth-ToKeN", "Accept", "Content-Type", "user-agent", "session_id",
                      "SESSION", "apikey", "api_key", "API-KEY", "tokens", "atoken", "signatur", "Signature",
                      "access_key", "AccessKey", "passphrase", "pass", "credentials", "Authorization", "authorizatio",
                      "naïve-token", "ÄPI_KEY", "api_\u{212A}ey", "PRIVATE_\u{212A}EY", "Ünïcode", "@[`{", "ZZZ", "zzz"])
    func agreesWithDefinition(_ name: String) {
        #expect(Redaction.isSensitive(name: name) == reference(name), "\(name)")
    }

    @Test("the Kelvin sign lowercases to k, so api_\u{212A}ey is secret")
    func kelvinSign() {
        #expect(Redaction.isSensitive(name: "api_\u{212A}ey"))
    }
}
