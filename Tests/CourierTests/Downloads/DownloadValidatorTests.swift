@testable import Courier
import HTTPTypes
import Testing

@Suite("Which validator a download resumes with (RFC 9110 §8.8, §13.1.5)")
struct DownloadValidatorTests {
    typealias Validator = DownloadResumeToken.Validator

    private func head(_ fields: [HTTPField.Name: String], status: HTTPResponse.Status = .ok) -> HTTPResponse {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields[name] = value }
        return HTTPResponse(status: status, headerFields: headerFields)
    }

    @Test("a strong ETag is used")
    func strongETag() {
        #expect(Validator(resuming: head([.eTag: "\"v1\""])) == .entityTag("\"v1\""))
    }

    @Test("a weak ETag is never sent in If-Range, and rules out the date too", arguments: ["W/\"v1\"", "v1", "\"v\"1\"", "\""])
    func weakETag(_ tag: String) {
        #expect(Validator(resuming: head([.eTag: tag, .lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
                                          .date: "Tue, 02 Jan 2024 00:00:00 GMT"])) == nil)
    }

    @Test("Last-Modified is used only when the response's Date is at least 60 s later")
    func lastModified() {
        let modified = "Mon, 01 Jan 2024 00:00:00 GMT"
        #expect(Validator(resuming: head([.lastModified: modified, .date: "Mon, 01 Jan 2024 00:01:00 GMT"])) == .lastModified(modified))
        #expect(Validator(resuming: head([.lastModified: modified, .date: "Mon, 01 Jan 2024 00:00:59 GMT"])) == nil)
        #expect(Validator(resuming: head([.lastModified: modified])) == nil, "no Date: the date cannot be shown strong")
        #expect(Validator(resuming: head([.lastModified: "yesterday", .date: "Mon, 01 Jan 2024 00:01:00 GMT"])) == nil)
    }

    @Test("no validator at all: nothing to resume with")
    func none() {
        #expect(Validator(resuming: head([:])) == nil)
    }

    @Test("a later response matches by the strong comparison; a missing validator is unknown")
    func matching() {
        let tag = Validator.entityTag("\"v1\"")
        #expect(tag.matches(head([.eTag: "\"v1\""], status: .partialContent)) == true)
        #expect(tag.matches(head([.eTag: "W/\"v1\""], status: .partialContent)) == false)
        #expect(tag.matches(head([.eTag: "\"v2\""], status: .partialContent)) == false)
        #expect(tag.matches(head([:], status: .partialContent)) == nil)
        let date = Validator.lastModified("Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(date.matches(head([.lastModified: "Monday, 01-Jan-24 00:00:00 GMT"], status: .partialContent)) == true)
        #expect(date.matches(head([.lastModified: "Mon, 01 Jan 2024 00:00:01 GMT"], status: .partialContent)) == false)
        #expect(date.matches(head([.eTag: "\"v1\""], status: .partialContent)) == false, "a tag where there was only a date")
    }
}
