@testable import Courier
import HTTPTypes
import Testing

@Suite("The resumable upload draft's fields: Upload-Limit, Upload-Offset, Upload-Complete, Accept-Patch")
struct UploadProtocolTests {
    @Test("Upload-Limit: each known key; unknown keys skipped; a known key of another type ignores the field")
    func limits() throws {
        let limits = try #require(UploadLimits(field: "max-size=1000000, min-size=1, max-append-size=65536, min-append-size=1024, max-age=3600, future=\"x\""))
        #expect(limits == UploadLimits(maxSize: 1_000_000, minSize: 1, maxAppendSize: 65536, minAppendSize: 1024, maxAge: 3600))
        #expect(UploadLimits(field: "max-size=\"big\"") == nil)
        #expect(UploadLimits(field: "max-append-size=-1") == nil)
        #expect(UploadLimits(field: "max-size=1.5") == nil)
        #expect(UploadLimits(field: "max-size") == nil, "a bare key is the Boolean true")
        #expect(UploadLimits(field: "max-size=10,") == nil)
        #expect(UploadLimits(field: "") == UploadLimits())
        let newer = UploadLimits(maxAppendSize: 10)
        #expect(limits.updated(by: newer).maxAppendSize == 10 && limits.updated(by: newer).maxSize == 1_000_000)
    }

    @Test("Upload-Offset and Upload-Length: non-negative Integers; Upload-Complete: a Boolean; anything else ignored")
    func fields() {
        func response(_ fields: [(String, String)]) -> HTTPResponse {
            var head = HTTPResponse(status: .noContent)
            for (name, value) in fields { head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
            return head
        }
        let good = response([("Upload-Offset", "1048576"), ("Upload-Complete", "?0"), ("Upload-Length", "2097152")])
        #expect(UploadProtocol.offset(in: good) == 1_048_576)
        #expect(UploadProtocol.complete(in: good) == false)
        #expect(UploadProtocol.length(in: good) == 2_097_152)
        let bad = response([("Upload-Offset", "-5"), ("Upload-Complete", "true"), ("Upload-Length", "12abc")])
        #expect(UploadProtocol.offset(in: bad) == nil)
        #expect(UploadProtocol.complete(in: bad) == nil)
        #expect(UploadProtocol.length(in: bad) == nil)
        #expect(UploadProtocol.offset(in: response([("Upload-Offset", "99999999999999999999")])) == nil)
    }

    @Test("Accept-Patch offers resumption only when it names application/partial-upload itself")
    func acceptPatch() {
        func offers(_ values: [String]) -> Bool {
            var head = HTTPResponse(status: .noContent)
            for value in values { head.headerFields.append(HTTPField(name: UploadProtocol.acceptPatch, value: value)) }
            return UploadProtocol.offersResumption(head)
        }
        #expect(offers(["application/partial-upload"]))
        #expect(offers(["application/json-patch+json, Application/Partial-Upload;q=1"]))
        #expect(offers(["text/plain", "application/partial-upload"]))
        #expect(!offers(["*/*"]))
        #expect(!offers(["application/*"]))
        #expect(!offers(["application/partial-upload-v2"]))
        #expect(!offers([]))
    }
}
