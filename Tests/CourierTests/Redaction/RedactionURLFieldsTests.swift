import Courier
import HTTPTypes
import Testing

/// Header fields whose values are URLs carry secret query values as a request target does.
@Suite("Redaction: URL-valued header fields")
struct RedactionURLFieldsTests {
    private static let link = HTTPField.Name("Link")!
    private static let contentLocation = HTTPField.Name("Content-Location")!

    @Test("Location and Content-Location: secret query values and user info go, the rest stays")
    func locations() {
        let fields: HTTPFields = [
            .location: "https://user:pw@cdn.example.net/file?X-Amz-Signature=SIG-SECRET&part=2",
            Self.contentLocation: "/v1/items?access_token=TOK-SECRET&page=3",
        ]
        let redacted = Redaction.redact(fields)
        #expect(redacted[.location] == "https://<redacted>@cdn.example.net/file?X-Amz-Signature=<redacted>&part=2")
        #expect(redacted[Self.contentLocation] == "/v1/items?access_token=<redacted>&page=3")
    }

    @Test("Link: each target's secret query values go; parameters and other links stay")
    func links() {
        let value = #"</v2/items?page=2&token=TOK-SECRET>; rel="next", <https://api.example.com/v2/items?page=9&appid=K-SECRET>; rel="last""#
        let fields: HTTPFields = [Self.link: value]
        #expect(Redaction.redact(fields)[Self.link] == #"</v2/items?page=2&token=<redacted>>; rel="next", <https://api.example.com/v2/items?page=9&appid=K-SECRET>; rel="last""#)
        let withAdded = Redaction.redact(fields, queryNames: Redaction.QueryNames.standard.adding(["appid"]))
        #expect(withAdded[Self.link] == #"</v2/items?page=2&token=<redacted>>; rel="next", <https://api.example.com/v2/items?page=9&appid=<redacted>>; rel="last""#)
    }

    @Test("fields without secrets are returned as they were", arguments: [
        "</v2/items?page=2>; rel=\"next\"", "<>; rel=\"self\"", "<unterminated?token=x", "no brackets at all",
    ])
    func untouched(_ value: String) {
        let fields: HTTPFields = [Self.link: value]
        let expected = value == "<unterminated?token=x" ? "<unterminated?token=<redacted>" : value
        #expect(Redaction.redact(fields)[Self.link] == expected)
    }
}
