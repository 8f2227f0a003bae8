@testable import Courier
import HTTPTypes
import Testing

@Suite("How a download judges an answer to its range request (RFC 9110 §14, §15.3.7, §15.5.17)")
struct RangeRequestTests {
    static let tag = "\"v1\""
    /// 400 of 1,000 bytes on disk, of the representation tagged "v1".
    static let resumed = RangeRequest(offset: 400, validator: .entityTag(tag), completeLength: 1000, representationDigest: nil)

    private func head(_ code: Int, _ fields: [HTTPField.Name: String]) -> HTTPResponse {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields[name] = value }
        return HTTPResponse(status: HTTPResponse.Status(code: code), headerFields: headerFields)
    }

    private func reason(_ answer: RangeRequest.Answer) -> DownloadError.Reason? {
        if case .fail(let error) = answer { return error.reason }
        return nil
    }

    @Test("a 206 starting where the file ends, same validator and length: appended there")
    func continues() {
        let answer = Self.resumed.answer(to: head(206, [.contentRange: "bytes 400-999/1000", .eTag: Self.tag, .contentLength: "600"]), accepted: true)
        #expect(answer == .write(offset: 400, end: 1000, completeLength: 1000, restart: nil))
    }

    @Test("a shorter 206 is appended too; the rest is asked for next")
    func shortRange() {
        let answer = Self.resumed.answer(to: head(206, [.contentRange: "bytes 400-499/1000", .eTag: Self.tag]), accepted: true)
        #expect(answer == .write(offset: 400, end: 500, completeLength: 1000, restart: nil))
    }

    @Test("a 200 to a range request (range ignored, or the resource changed) replaces the file from zero")
    func wholeAnswer() {
        let answer = Self.resumed.answer(to: head(200, [.contentLength: "1200", .eTag: "\"v2\""]), accepted: true)
        #expect(answer == .write(offset: 0, end: 1200, completeLength: 1200, restart: .wholeAnswer(status: 200)))
    }

    @Test("a Content-Range that does not start where the file ends is an error, never appended")
    func mismatch() {
        #expect(reason(Self.resumed.answer(to: head(206, [.contentRange: "bytes 300-999/1000", .eTag: Self.tag]), accepted: true)) == .contentRangeMismatch)
        #expect(reason(Self.resumed.answer(to: head(206, [.contentRange: "bytes 500-999/1000", .eTag: Self.tag]), accepted: true)) == .contentRangeMismatch)
    }

    @Test("a 206 with no, a malformed, a multipart, a huge or an unknown-length Content-Range is an error", arguments: [
        [HTTPField.Name.eTag: tag],
        [.eTag: tag, .contentRange: "bytes 400-999"],
        [.eTag: tag, .contentRange: "bytes 400-1000/1000"],
        [.eTag: tag, .contentRange: "bytes 400-9223372036854775806/9223372036854775807"],
        [.eTag: tag, .contentRange: "bytes 400-999/*"],
        [.eTag: tag, .contentType: "multipart/byteranges; boundary=x"],
        [.eTag: tag, .contentRange: "bytes 400-999/1000", .contentLength: "10"],
    ])
    func invalid(_ fields: [HTTPField.Name: String]) {
        #expect(reason(Self.resumed.answer(to: head(206, fields), accepted: true)) == .invalidContentRange)
    }

    @Test("a 206 in a content coding is an error: its bytes are not the representation's")
    func coded() {
        let answer = Self.resumed.answer(to: head(206, [.contentRange: "bytes 400-999/1000", .eTag: Self.tag, .contentEncoding: "gzip"]), accepted: true)
        #expect(reason(answer) == .encodedPartialContent)
    }

    @Test("a 206 to a request that asked for no range is an error")
    func unrequested() {
        let answer = RangeRequest.whole.answer(to: head(206, [.contentRange: "bytes 0-9/10"]), accepted: true)
        #expect(reason(answer) == .unrequestedPartialContent)
    }

    @Test("a 206 of another representation or length restarts from zero")
    func otherRepresentation() {
        #expect(Self.resumed.answer(to: head(206, [.contentRange: "bytes 400-999/1000", .eTag: "\"v2\""]), accepted: true) == .restart(.validatorChanged))
        #expect(Self.resumed.answer(to: head(206, [.contentRange: "bytes 400-999/1000", .eTag: "W/\"v1\""]), accepted: true) == .restart(.validatorChanged))
        #expect(Self.resumed.answer(to: head(206, [.contentRange: "bytes 400-999/1000"]), accepted: true) == .restart(.validatorChanged),
                "a 206 must carry the ETag a 200 would (RFC 9110 §15.3.7)")
        #expect(Self.resumed.answer(to: head(206, [.contentRange: "bytes 400-1099/1100", .eTag: Self.tag]), accepted: true)
                == .restart(.lengthChanged(from: 1000, to: 1100)))
    }

    @Test("a 416 saying the representation is exactly the bytes on disk: the file is whole")
    func satisfiedAlready() {
        let whole = RangeRequest(offset: 1000, validator: .entityTag(Self.tag), completeLength: 1000, representationDigest: nil)
        #expect(whole.answer(to: head(416, [.contentRange: "bytes */1000"]), accepted: false) == .complete(length: 1000))
        #expect(whole.answer(to: head(416, [.contentRange: "bytes */1000", .eTag: "\"v2\""]), accepted: false) == .restart(.validatorChanged))
    }

    @Test("any other 416 restarts from zero")
    func notSatisfiable() {
        #expect(Self.resumed.answer(to: head(416, [.contentRange: "bytes */300"]), accepted: false) == .restart(.lengthChanged(from: 1000, to: 300)))
        #expect(Self.resumed.answer(to: head(416, [:]), accepted: false) == .restart(.rangeNotSatisfiable))
        #expect(RangeRequest.whole.answer(to: head(416, [:]), accepted: false) == .notHandled, "no range was asked for: an ordinary error")
    }

    @Test("an error status is left to the client's usual handling")
    func errorStatus() {
        #expect(Self.resumed.answer(to: head(404, [:]), accepted: false) == .notHandled)
    }

    @Test("a caller's own Range: its 206 is the answer, written from the start")
    func callersRange() {
        var own = RangeRequest.whole
        own.callerAskedForRange = true
        #expect(own.answer(to: head(206, [.contentRange: "bytes 0-9/100", .contentLength: "10"]), accepted: true)
                == .write(offset: 0, end: 10, completeLength: nil, restart: nil))
    }
}
