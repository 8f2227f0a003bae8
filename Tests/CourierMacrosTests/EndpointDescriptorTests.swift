@testable import CourierMacros
import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("EndpointDescriptor")
struct EndpointDescriptorTests {
    @Test("values become text: raw values, nested optionals, booleans, descriptions")
    func text() {
        #expect(EndpointDescriptor.text(Sort.newest) == "newest")
        #expect(EndpointDescriptor.text(Optional(Optional(3)) as Any) == "3")
        #expect(EndpointDescriptor.text(Optional<Int>.none as Any) == nil)
        #expect(EndpointDescriptor.text(true) == "true")
        #expect(EndpointDescriptor.text(1.5) == "1.5")
        #expect(EndpointDescriptor.text(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(EndpointDescriptor.text(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!) == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    }

    @Test("path, query and header builders leave nil out")
    func nilIsLeftOut() {
        var endpoint = EndpointDescriptor(method: "GET", path: "/a/{id=3}", operation: "A.a(id:)")
        endpoint.path("id", Int?.none)
        endpoint.query("q", String?.none)
        endpoint.header("X-A", String?.none)

        #expect(endpoint.pathParameters.isEmpty)
        #expect(endpoint.query.isEmpty)
        #expect(endpoint.headers.isEmpty)
        #expect(endpoint.method == .get)
        #expect(endpoint.options.operationName == "A.a(id:)")
    }

    @Test("Data, a dictionary, or a list where one value goes (path, header) fails the call instead of sending Swift's description of it")
    func valuesWithoutATextFormFail() {
        let cases: [(String, (inout EndpointDescriptor) -> Void)] = [
            ("Data in the path", { $0.path("hash", Data([1, 2])) }),
            ("Data in the query", { $0.query("sig", Data([1, 2])) }),
            ("Data in a header", { $0.header("X-Sig", Data([1, 2])) }),
            ("Data among query values", { $0.query("sig", [Data([1])]) }),
            ("a dictionary in the query", { $0.query("filter", ["a": 1]) }),
            ("a set in the path", { $0.path("ids", Set([1, 2])) }),
            ("a set in a header", { $0.header("X-Tags", Set(["a"])) }),
            ("a dictionary in a form", { $0.formField("filter", ["a": 1]) }),
            ("a dictionary in a multipart form", { $0.multipartField("filter", ["a": 1]) }),
        ]
        for (label, bind) in cases {
            var endpoint = EndpointDescriptor(method: "GET", path: "/a/{hash}/{ids}", operation: "A.a()")
            bind(&endpoint)
            #expect(endpoint.deferredEncodingError is EndpointError, "\(label)")
            #expect(endpoint.query.isEmpty && endpoint.headers.isEmpty && endpoint.pathParameters.isEmpty, "\(label): nothing is sent for it")
        }
    }

    @Test("an array of text values where one value goes (path, header) is sent joined with commas, as before")
    func arraysJoined() {
        var endpoint = EndpointDescriptor(method: "GET", path: "/a/{ids}", operation: "A.a()")
        endpoint.path("ids", [1, 2])
        endpoint.header("Accept-Language", ["en", "fr"])
        #expect(endpoint.deferredEncodingError == nil)
        #expect(endpoint.pathParameters["ids"] == "1,2")
        #expect(endpoint.headers[HTTPField.Name("Accept-Language")!] == "en,fr")
    }

    @Test("a set or an array slice in the query adds one item per element, as an array does (a set's in sorted order)")
    func collectionsInTheQuery() {
        var endpoint = EndpointDescriptor(method: "GET", path: "/a", operation: "A.a()")
        endpoint.query("tags", Set(["b", "a"]))
        endpoint.query("ids", [1, 2, 3][1...])
        #expect(endpoint.query == [URLQueryItem(name: "tags", value: "a"), URLQueryItem(name: "tags", value: "b"),
                                   URLQueryItem(name: "ids", value: "2"), URLQueryItem(name: "ids", value: "3")])
        #expect(endpoint.deferredEncodingError == nil)
    }

    @Test("a payload description given with a MultipartForm body fails the call: the form's parts are named where they are appended")
    func payloadDescriptionWithFormFails() {
        var form = MultipartForm()
        form.append(Data([1, 2]), name: "file", fileName: "a.bin")
        var endpoint = EndpointDescriptor(method: "POST", path: "/up", operation: "A.up(_:)")
        endpoint.filePart("file", form, description: PayloadDescription(name: "avatar", fileName: "me.png", mimeType: "image/png"))
        #expect(endpoint.deferredEncodingError is EndpointError)
        var plain = EndpointDescriptor(method: "POST", path: "/up", operation: "A.up(_:)")
        plain.filePart("file", form, description: nil)
        #expect(plain.deferredEncodingError == nil)
    }

    @Test("an invalid header or method is kept as an error for send time")
    func pendingErrors() {
        var endpoint = EndpointDescriptor(method: "GET", path: "/", operation: "A.a()")
        endpoint.header("X-A", "a\nb")
        #expect(endpoint.deferredEncodingError is InvalidHeaderError)

        let bad = EndpointDescriptor(method: "G T", path: "/", operation: "A.a()")
        #expect(bad.deferredEncodingError is EndpointError)
    }

    @Test("a call's input error survives replacing its request's options: sending fails, nothing is sent")
    func pendingErrorSurvivesNewOptions() async throws {
        var endpoint = EndpointDescriptor(method: "GET", path: "/", operation: "A.a()")
        endpoint.header("X-A", "a\nb")
        var request = endpoint.request(decode: { _, data, _ in data })
        request.options = RequestOptions(timeout: .seconds(5))
        let stub = StubTransport()
        stub.on(.get, "/*", .status(200))
        let client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: stub)
        await #expect(throws: APIError.self) { try await client.send(request) }
        do {
            _ = try await client.send(request)
        } catch let error as APIError {
            #expect(error.kind == .encodingFailed)
            #expect(error.underlyingError is InvalidHeaderError)
        }
        #expect(stub.requests.isEmpty)
        #expect(request.options.timeout == .seconds(5))
    }

    @Test("@Options keep the operation name unless they set one")
    func optionsKeepName() {
        var endpoint = EndpointDescriptor(method: "GET", path: "/", operation: "A.a()")
        endpoint.options(RequestOptions(timeout: .seconds(1)))
        #expect(endpoint.options.operationName == "A.a()")
        #expect(endpoint.options.timeout == .seconds(1))

        endpoint.options(RequestOptions(operationName: "custom"))
        #expect(endpoint.options.operationName == "custom")
    }

    @Test("an inferred payload description names the part after the parameter and types it by magic bytes")
    func inferredPayload() {
        #expect(PayloadDescription.inferred(name: "image", data: jpegBytes) == PayloadDescription(name: "image", fileName: "image.jpg", mimeType: "image/jpeg"))
        #expect(PayloadDescription.inferred(name: "doc", data: Data("%PDF-1.7".utf8)).mimeType == "application/pdf")
        #expect(PayloadDescription.inferred(name: "note", data: Data("hello".utf8)).fileName == "note.txt")
        #expect(PayloadDescription.inferred(name: "blob", data: Data([0xC3, 0x28, 0x00, 0xFF])).mimeType == "application/octet-stream")
        #expect(PayloadDescription.inferred(name: "pic", data: Data("GIF89a".utf8)).mimeType == "image/gif")
        #expect(PayloadDescription.inferred(name: "scan", data: Data([0x49, 0x49, 0x2A, 0x00, 1])).mimeType == "image/tiff")
    }

    @Test("form bodies flatten an Encodable's top-level properties in key order")
    func formFlattening() throws {
        struct Form: Encodable { var b: Int; var a: String; var c: [String]; var d: Bool; var e: String? }
        var endpoint = EndpointDescriptor(method: "POST", path: "/", operation: "A.a()")
        endpoint.formBody(Form(b: 2, a: "x", c: ["1", "2"], d: true, e: nil))

        // Flattened when the call is sent, with the client's encoder.
        let fields = try #require(endpoint.resolvingFormBody(with: JSONEncoder()).formFields)
        #expect(fields.map(\.0) == ["a", "b", "c", "c", "d"])
        #expect(fields.map(\.1) == ["x", "2", "1", "2", "true"])
    }

    @Test("verbose lines show the URL without query values")
    func verboseDescription() {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/a?token=secret")
        #expect(VerboseMiddleware.describe(request) == "https://api.example.com/v1/a?…")
    }
}

@Suite("verbose services")
struct VerboseTests {
    @Test("verbose: true adds the line-per-exchange middleware; the default adds none")
    func verboseInstallsMiddleware() {
        let stub = StubTransport()
        let quiet = MyEndpointService(baseURL: baseURL, transport: stub)
        let loud = MyEndpointService(baseURL: baseURL, verbose: true, transport: stub)

        #expect(quiet.client.middleware.isEmpty)
        #expect(loud.client.middleware.count == 1 && loud.client.middleware.first is VerboseMiddleware)
    }

    @Test("one line out and one line back, without query values or headers")
    func verboseLines() async throws {
        let lines = Locked<[String]>([])
        let stub = StubTransport()
        stub.on(.get, "/authors/*", .json(Post(id: 7, title: "Hi")))
        let client = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: stub,
                               middleware: [VerboseMiddleware(write: { line in lines.withLock { $0.append(line) } })])
        let service = MyEndpointService(client: client)

        _ = try await service.getPost(id: 7, author: "secret-author")

        let written = lines.withLock { $0 }
        #expect(written.count == 2)
        #expect(written.first == "[MyEndpoint.getPost(id:author:)] → GET https://api.example.com/v1/authors/7?…")
        #expect(written.last?.hasPrefix("[MyEndpoint.getPost(id:author:)] ← 200 GET https://api.example.com/v1/authors/7?… (") == true)
        #expect(!written.joined().contains("secret-author"))
    }
}
