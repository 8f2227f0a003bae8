@testable import Courier
import HTTPTypes
import Testing

@Suite("Repr-Digest and Content-Digest (RFC 9530)")
struct RepresentationDigestTests {
    /// SHA-256 of "hello world".
    static let hex = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"
    static let base64 = "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="

    private func head(_ status: HTTPResponse.Status, _ fields: [(String, String)]) -> HTTPResponse {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return HTTPResponse(status: status, headerFields: headerFields)
    }

    @Test("the sha-256 member of a dictionary is read, among others and with parameters")
    func parse() {
        #expect(RepresentationDigest.sha256(inField: "sha-256=:\(Self.base64):") == Self.hex)
        #expect(RepresentationDigest.sha256(inField: "sha-512=:AAAA:, SHA-256=:\(Self.base64):;p=1") == Self.hex)
        #expect(RepresentationDigest.sha256(inField: "sha-512=:AAAA:") == nil)
        #expect(RepresentationDigest.sha256(inField: "sha-256=\(Self.base64)") == nil, "not a byte sequence")
        #expect(RepresentationDigest.sha256(inField: "sha-256=:AAAA:") == nil, "not 32 bytes")
        #expect(RepresentationDigest.sha256(inField: "sha-256=:!!:") == nil)
    }

    @Test("Repr-Digest describes the representation in a 200 and a 206; Content-Digest only in a 200")
    func whichField() {
        let value = "sha-256=:\(Self.base64):"
        #expect(RepresentationDigest.sha256(announcedBy: head(.ok, [("Repr-Digest", value)])) == Self.hex)
        #expect(RepresentationDigest.sha256(announcedBy: head(.partialContent, [("Repr-Digest", value)])) == Self.hex)
        #expect(RepresentationDigest.sha256(announcedBy: head(.ok, [("Content-Digest", value)])) == Self.hex)
        #expect(RepresentationDigest.sha256(announcedBy: head(.partialContent, [("Content-Digest", value)])) == nil)
        #expect(RepresentationDigest.sha256(announcedBy: head(.ok, [("Repr-Digest", value), ("Content-Encoding", "gzip")])) == nil,
                "a digest of coded bytes says nothing of the decoded file")
    }
}
