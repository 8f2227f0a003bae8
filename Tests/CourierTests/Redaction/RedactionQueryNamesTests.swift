import Courier
import Foundation
import HTTPTypes
import Testing

@Suite("Query redaction: pre-signed URLs, OpenTelemetry's list, signed-parameter APIs' names")
struct RedactionQueryNamesTests {
    /// One query name per family whose value must never be shown.
    static let secretNames = [
        // AWS SigV2 and SigV4 query authentication (S3 pre-signed URLs).
        "AWSAccessKeyId", "Signature", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token",
        // Google Cloud Storage signed URLs (V2 and V4).
        "GoogleAccessId", "X-Goog-Signature", "X-Goog-Credential",
        // Azure shared access signatures.
        "sig",
        // The signature and ticket parameters of APIs that sign their parameters.
        "sign", "pub_sign", "pubSign", "ticket", "pub_ticket",
    ]

    @Test("every pre-signed URL family's secret parameters are redacted, whatever their case", arguments: secretNames)
    func secretNameIsRedacted(_ name: String) {
        for spelling in [name, name.lowercased(), name.uppercased()] {
            let target = "/bucket/object.txt?a=1&\(spelling)=SECRET-VALUE&b=2"
            let redacted = Redaction.redactQuery(inTarget: target)
            #expect(redacted == "/bucket/object.txt?a=1&\(spelling)=<redacted>&b=2", "\(spelling)")
        }
    }

    @Test("a fragment's secret values are redacted too (OAuth's implicit flow puts its tokens there), with or without a query")
    func fragment() {
        #expect(Redaction.redactURL("https://app.example/cb#access_token=SECRET&expires_in=3600")
                == "https://app.example/cb#access_token=<redacted>&expires_in=3600")
        #expect(Redaction.redactURL("https://app.example/cb?state=x&token=Q-SECRET#id_token=SECRET&state=y")
                == "https://app.example/cb?state=x&token=<redacted>#id_token=<redacted>&state=y")
        #expect(Redaction.redactURL("https://app.example/docs#section-2") == "https://app.example/docs#section-2")
        #expect(Redaction.redactQuery(inTarget: "/a?b=1#c") == "/a?b=1#c")
    }

    @Test("a percent-encoded secret name is redacted too")
    func percentEncodedName() {
        #expect(Redaction.redactQuery(inTarget: "/o?X%2DAmz%2DSignature=abc") == "/o?X%2DAmz%2DSignature=<redacted>")
    }

    @Test("short names are matched exactly: 'design', 'signal', 'tickets_count' and 'assign' stay visible")
    func harmlessNamesStay() {
        let target = "/search?design=flat&signal=3&tickets_count=2&assign=me&sigma=1&se=2026-01-01&sp=r"
        #expect(Redaction.redactQuery(inTarget: target) == target)
    }

    @Test("a whole S3, GCS and Azure pre-signed URL keeps its shape and loses its secrets")
    func wholePresignedURLs() {
        let s3 = "https://bucket.s3.amazonaws.com/k.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=0123abcd"
        let gcs = "https://storage.googleapis.com/b/o?GoogleAccessId=svc@p.iam.gserviceaccount.com&Expires=1700000000&Signature=ZmFrZQ%3D%3D"
        let azure = "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2026-01-01T00%3A00%3A00Z&sr=b&sp=r&sig=AbCd%2Bef%3D"
        let v2 = "https://bucket.s3.amazonaws.com/k?AWSAccessKeyId=AKIAEXAMPLE&Expires=1700000000&Signature=c2ln"
        for url in [s3, gcs, azure, v2] {
            let redacted = Redaction.redactURL(url)
            for secret in ["AKIAEXAMPLE", "0123abcd", "svc@p", "ZmFrZQ", "AbCd", "c2ln"] {
                #expect(!redacted.contains(secret), "\(redacted)")
            }
        }
        #expect(Redaction.redactURL(azure) == "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2026-01-01T00%3A00%3A00Z&sr=b&sp=r&sig=<redacted>")
    }

    @Test("users add names; the standard list is unchanged by it")
    func addedNames() {
        let names = Redaction.QueryNames.standard.adding(["Key", "session_hint"])
        #expect(names.contains("key"))
        #expect(names.contains("KEY"))
        #expect(names.contains("sig"))
        #expect(!Redaction.QueryNames.standard.contains("key"))
        #expect(names.redact(target: "/m?key=AIzaSECRET&q=1") == "/m?key=<redacted>&q=1")
        #expect(names.redact(url: "https://u:p@maps.example.com/m?key=AIzaSECRET") == "https://<redacted>@maps.example.com/m?key=<redacted>")
        #expect(Redaction.redactQuery(inTarget: "/m?key=AIza") == "/m?key=AIza")
    }

    @Test("an error's request summary hides a pre-signed URL's signature")
    func requestSummary() {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "bucket.s3.amazonaws.com",
                                  path: "/k.txt?X-Amz-Signature=abc123&sig=def456&x=1")
        let summary = RequestSummary(request)
        #expect(summary.url == "https://bucket.s3.amazonaws.com/k.txt?X-Amz-Signature=<redacted>&sig=<redacted>&x=1")
    }
}
