import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import CourierURLSession
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Request bodies the client holds in memory (JSON, `Data`, forms) arrive byte for byte over
/// both transports, whichever way the transport sends them: as they are, through a temporary
/// file, as one buffer or streamed — and a middleware that replaces a body has its own bytes sent.
@Suite("Request bodies held in memory over real transports")
struct RequestBodyDeliveryTests {
    struct Note: Codable, Sendable, Equatable { var title: String; var text: String }

    /// Bytes of `count` that are not all alike.
    static func bytes(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    /// A transport whose URLSession in-memory limit is 4 KiB, so larger bodies go through a file.
    static func transport(_ kind: TransportKind, temporaryDirectory: URL) -> any Transport {
        switch kind {
        case .urlSession: return URLSessionTransport(maxRequestBodySize: 4096, temporaryDirectory: temporaryDirectory)
        case .asyncHTTPClient: return AsyncHTTPClientTransport()
        }
    }

    @Test("JSON, Data and form bodies arrive byte for byte, below and above the transports' in-memory limits, and leave no temporary file",
          arguments: TransportKind.allCases)
    func heldBodies(_ kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-held-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                   transport: Self.transport(kind, temporaryDirectory: directory))
            let note = Note(title: "hi", text: String(repeating: "x", count: 10))
            let json = try await client.send(Request<Echo>(method: .post, path: "/echo", body: .json(note)))
            #expect(try JSONDecoder().decode(Note.self, from: Data(json.body.utf8)) == note)
            #expect(json.headers["content-type"] == "application/json")
            // 1 KiB: in memory on both; 10 KiB: past URLSession's 4 KiB here; 100 KiB: past
            // AsyncHTTPClient's 64 KiB one-buffer limit.
            for size in [0, 1024, 10 * 1024, 100 * 1024] {
                let data = Self.bytes(size)
                let echo = try await client.send(Request<Echo>(method: .put, path: "/echo", body: .data(data, contentType: "application/octet-stream")))
                #expect(Data(base64Encoded: echo.bodyBase64) == data, "\(size) bytes")
                if size > 0 { #expect(echo.headers["content-length"] == "\(size)", "\(size) bytes") }
            }
            // An empty POST body is framed as such.
            let empty = try await client.send(Request<Echo>(method: .post, path: "/echo", body: .data(Data(), contentType: "application/octet-stream")))
            #expect(empty.bodyBase64.isEmpty)
            #expect(empty.headers["content-length"] == "0")
            let form = try await client.send(Request<Echo>(method: .post, path: "/echo", body: .form([("a", "1"), ("b", "x y")])))
            #expect(form.body == "a=1&b=x+y" || form.body == "a=1&b=x%20y")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    /// Replaces every request body with its own bytes, as a signing or compressing middleware
    /// does.
    private struct ReplacesBody: Middleware {
        let replacement: Data

        func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                       next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            request.headerFields[.contentLength] = nil
            return try await next(request, body == nil ? nil : HTTPBody(replacement), context)
        }
    }

    @Test("a middleware that replaces a JSON body has its own bytes sent, not the ones the client held", arguments: TransportKind.allCases)
    func replacedBody(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport(),
                                   middleware: [ReplacesBody(replacement: Data("replaced".utf8))])
            let echo = try await client.send(Request<Echo>(method: .post, path: "/echo", body: .json(Note(title: "original", text: ""))))
            #expect(echo.body == "replaced")
        }
    }

    @Test("upload progress of a JSON body reaches its length", arguments: TransportKind.allCases)
    func progressOfHeldBody(_ kind: TransportKind) async throws {
        try await withTestServer { server in
            let client = kind.client(for: server)
            let note = Note(title: "progress", text: String(repeating: "y", count: 20_000))
            let length = Int64(try JSONEncoder().encode(note).count)
            let reports = Locked<[TransferProgress]>([])
            let echo = try await client.upload(Request<Echo>(method: .post, path: "/echo", body: .json(note))) { progress in
                reports.withLock { $0.append(progress) }
            }
            #expect(try JSONDecoder().decode(Note.self, from: Data(echo.body.utf8)) == note)
            let last = try #require(reports.withLock { $0.last })
            #expect(last.completedBytes == length)
            #expect(last.totalBytes == length)
        }
    }
}
