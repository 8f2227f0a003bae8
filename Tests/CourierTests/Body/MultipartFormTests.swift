@testable import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("Multipart form bodies")
struct MultipartFormTests {
    private func bytes(of form: MultipartForm) async throws -> Data {
        try await Data(collecting: SegmentSequence(segments: form.segments(), chunkSize: 7).makeBody(), upTo: .max)
    }

    @Test("fields and files are written byte for byte as RFC 7578 says")
    func exactBytes() async throws {
        var form = MultipartForm(boundary: "XyZ")
        form.append("Ada", name: "name")
        form.append(Data([0xFF, 0xD8, 0xFF, 0x00, 0x0D, 0x0A]), name: "avatar", fileName: "me.jpg")
        let expected = "--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"me.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
        var want = Data(expected.utf8)
        want.append(contentsOf: [0xFF, 0xD8, 0xFF, 0x00, 0x0D, 0x0A])
        want.append(contentsOf: Array("\r\n--XyZ--\r\n".utf8))
        #expect(try await bytes(of: form) == want)
        #expect(form.contentType == "multipart/form-data; boundary=XyZ")
    }

    @Test("a boundary RFC 2046 does not allow, or one that a part contains at the start of a line, fails the request instead of a corrupt body")
    func boundaryChecked() throws {
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: NoTransport())
        func prepare(_ form: MultipartForm) throws { _ = try client.prepare(Request<Data>(method: .post, path: "/up", body: .multipart(form))) }
        for bad in ["", String(repeating: "b", count: 71), "ends-with-space ", "semi;colon", "quote\"d"] {
            var form = MultipartForm(boundary: bad)
            form.append("x", name: "a")
            let error = #expect(throws: APIError.self, "\(bad)") { try prepare(form) }
            #expect(error?.underlyingError is MultipartFormError, "\(bad)")
        }
        var colliding = MultipartForm(boundary: "x")
        colliding.append("before\r\n--x--\r\nafter", name: "note")
        #expect(throws: APIError.self) { try prepare(colliding) }
        var leading = MultipartForm(boundary: "x")
        leading.append("--x\r\n", name: "note")
        #expect(throws: APIError.self) { try prepare(leading) }
        // Allowed: a space inside (the header quotes it), and text that merely mentions the boundary.
        var spaced = MultipartForm(boundary: "a b")
        spaced.append("see --a b here", name: "note")
        try prepare(spaced)
        #expect(spaced.contentType == "multipart/form-data; boundary=\"a b\"")
        var random = MultipartForm()
        random.append("x", name: "a")
        try prepare(random)
    }

    @Test("a part's content type with a line break or NUL fails the request (it was sent with the break removed); NUL in a name is percent-encoded")
    func partHeadersChecked() async throws {
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: NoTransport())
        for type in ["image/png\r\nX-A: 1", "text/plain\0"] {
            var form = MultipartForm()
            form.append(Data([1]), name: "file", fileName: "a.png", contentType: type)
            let error = #expect(throws: APIError.self) { _ = try client.prepare(Request<Data>(method: .post, path: "/up", body: .multipart(form))) }
            #expect(error?.underlyingError is MultipartFormError)
        }
        var form = MultipartForm(boundary: "B")
        form.append("x", name: "a\0b")
        let text = String(decoding: try await bytes(of: form), as: UTF8.self)
        #expect(text.contains("name=\"a%00b\""))
    }

    @Test("a request's own multipart Content-Type gets the form's boundary; one that cannot describe the form fails the request")
    func ownContentType() throws {
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: NoTransport())
        var form = MultipartForm(boundary: "Bound-1")
        form.append("x", name: "a")
        func contentType(_ own: String) throws -> String? {
            try client.prepare(Request<Data>(method: .post, path: "/up", headers: [.contentType: own], body: .multipart(form))).0.headerFields[.contentType]
        }
        #expect(try contentType("multipart/form-data") == "multipart/form-data; boundary=Bound-1")
        #expect(try contentType("multipart/related; type=\"text/xml\"") == "multipart/related; type=\"text/xml\"; boundary=Bound-1")
        #expect(try contentType("multipart/form-data; boundary=Bound-1") == "multipart/form-data; boundary=Bound-1")
        #expect(try contentType("Multipart/Form-Data; Boundary=\"Bound-1\"") == "Multipart/Form-Data; Boundary=\"Bound-1\"")
        for wrong in ["multipart/form-data; boundary=other", "multipart/form-data; boundary=bound-1", "application/json"] {
            let error = #expect(throws: APIError.self, "\(wrong)") { _ = try contentType(wrong) }
            #expect(error?.kind == .encodingFailed, "\(wrong)")
        }
    }

    @Test("files are streamed from disk and the length is known up front")
    func fileParts() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-\(UUID().uuidString).png")
        let content = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: UInt8(7), count: 200_000))
        try content.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        var form = MultipartForm(boundary: "b")
        try form.appendFile(at: url, name: "image")
        let body = SegmentSequence(segments: form.segments(), chunkSize: 64 * 1024).makeBody()
        let data = try await Data(collecting: body, upTo: .max)
        #expect(body.length == .known(Int64(data.count)))
        #expect(String(decoding: data.prefix(300), as: UTF8.self).contains("filename=\"\(url.lastPathComponent)\"\r\nContent-Type: image/png"))
        #expect(data.range(of: content) != nil)
        // A second iteration yields the same bytes (retries and 307 redirects resend it).
        #expect(try await Data(collecting: body, upTo: .max) == data)
    }

    @Test("a random boundary differs between forms")
    func randomBoundary() {
        #expect(MultipartForm().boundary != MultipartForm().boundary)
    }

    @Test("quotes and line breaks in names cannot break out of the header")
    func escaping() async throws {
        var form = MultipartForm(boundary: "b")
        form.append("v", name: "a\"\r\nX-Evil: 1")
        let text = String(decoding: try await bytes(of: form), as: UTF8.self)
        #expect(text.contains("name=\"a%22%0D%0AX-Evil: 1\""))
    }

    @Test("MIME types come from the extension, then the bytes")
    func mimeInference() {
        #expect(MediaType.infer(fileName: "a.PDF").description == "application/pdf")
        #expect(MediaType.infer(fileName: nil, data: Data("GIF89a...".utf8)).description == "image/gif")
        #expect(MediaType.infer(fileName: nil, data: Data([0x49, 0x49, 0x2A, 0x00, 1])).description == "image/tiff")
        #expect(MediaType.infer(fileName: nil, data: Data("plain words".utf8)).description == "text/plain")
        #expect(MediaType.infer(fileName: "blob", data: Data([0x00, 0xFF, 0xFE])).description == "application/octet-stream")
    }
}

/// A transport for tests that only prepare requests.
private struct NoTransport: Transport {
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        throw TransportError(.other, "not sent")
    }
}
