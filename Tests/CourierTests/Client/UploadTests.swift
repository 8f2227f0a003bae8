import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import OpenAPIRuntime
import Testing

@Suite("Uploads with progress")
struct UploadTests {
    @Test("a middleware of Courier's that reads the body first (debug logging, signing) does not count as progress: reports only grow")
    func readingMiddlewareIsNotProgress() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.bin")
        try Data(repeating: 7, count: 3_000_000).write(to: file)
        let stub = StubTransport()
        stub.on(.put, "/files/{name}", .status(204))
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "upload-test") { _ in handler }
        logger.logLevel = .debug
        // Reads the whole body first, as SigningMiddleware does to hash it.
        let hashing = MiddlewareTestSpy { request, body, context, next in
            _ = try await BodyReading.replayableBytes(body, limit: 10_000_000)
            return try await next(request, body, context)
        }
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub,
                               middleware: [LoggingMiddleware(logger: logger, level: .debug), hashing])
        let reports = LockedBox<[TransferProgress]>([])
        try await client.upload(Request<Void>(method: .put, path: "/files/payload.bin"), fromFile: file, contentType: "application/x-test") { p in
            reports.withLock { $0.append(p) }
        }
        let progress = reports.withLock { $0 }
        #expect(progress.last == TransferProgress(completedBytes: 3_000_000, totalBytes: 3_000_000))
        #expect(progress.dropLast().allSatisfy { $0.completedBytes < 3_000_000 })
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes }, "\(progress.map(\.completedBytes))")
    }

    @Test("a file is streamed as the body and progress reaches its size")
    func fileUpload() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.bin")
        let payload = Data((0..<200_000).map { UInt8($0 % 251) })
        try payload.write(to: file)
        let (client, stub) = makeClient()
        stub.on(.put, "/files/{name}", .status(204))
        let reports = LockedBox<[TransferProgress]>([])
        try await client.upload(Request<Void>(method: .put, path: "/files/payload.bin"), fromFile: file, contentType: "application/x-test") { p in
            reports.withLock { $0.append(p) }
        }
        let recorded = try #require(stub.requests.first)
        #expect(recorded.body == payload)
        #expect(recorded.headers[.contentType] == "application/x-test")
        let progress = reports.withLock { $0 }
        #expect(progress.count > 1)
        #expect(progress.last == TransferProgress(completedBytes: 200_000, totalBytes: 200_000))
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
    }

    @Test("any request body reports progress: JSON")
    func jsonBody() async throws {
        let (client, stub) = makeClient()
        stub.on(.post, "/users", .json(User(id: 1, name: "Ada")))
        let last = LockedBox<TransferProgress?>(nil)
        let user = try await client.upload(Request<User>(method: .post, path: "/users", body: .json(NewUser(name: "Ada")))) { p in
            last.withLock { $0 = p }
        }
        #expect(user.id == 1)
        let body = try #require(stub.requests.first?.body)
        #expect(last.withLock { $0 } == TransferProgress(completedBytes: Int64(body.count), totalBytes: Int64(body.count)))
        #expect(stub.requests.first?.headers[.contentType] == "application/json")
    }

    @Test("a multipart form with a Content-Type of the request's own gets its boundary there, as send gives it; a wrong boundary is refused")
    func multipartWithOwnContentType() async throws {
        let (client, stub) = makeClient()
        stub.on(.post, "/up", .status(204))
        var form = MultipartForm(boundary: "Bound-1")
        form.append("x", name: "a")
        try await client.upload(Request<Void>(method: .post, path: "/up", headers: [.contentType: "multipart/form-data"], body: .multipart(form))) { _ in }
        #expect(stub.requests.last?.headers[.contentType] == "multipart/form-data; boundary=Bound-1")
        let error = await #expect(throws: APIError.self) {
            try await client.upload(Request<Void>(method: .post, path: "/up", headers: [.contentType: "multipart/form-data; boundary=other"],
                                                  body: .multipart(form))) { _ in }
        }
        #expect(error?.kind == .encodingFailed)
        #expect(stub.requests.count == 1)
    }

    @Test("a stream of unknown length reports bytes without a total")
    func streamBody() async throws {
        let (client, stub) = makeClient()
        stub.on(.post, "/ingest", .status(202))
        let reports = LockedBox<[TransferProgress]>([])
        try await client.upload(Request<Void>(method: .post, path: "/ingest"), from: chunkedBody(["one", "two"])) { p in
            reports.withLock { $0.append(p) }
        }
        #expect(reports.withLock { $0 } == [TransferProgress(completedBytes: 3, totalBytes: nil), TransferProgress(completedBytes: 6, totalBytes: nil)])
        #expect(stub.requests.first?.bodyText == "onetwo")
    }

    @Test("reportingProgress keeps the length and restarts on each iteration")
    func wrapperRestarts() async throws {
        let reports = LockedBox<[Int64]>([])
        let body = HTTPBody("hello").reportingProgress { p in reports.withLock { $0.append(p.completedBytes) } }
        #expect(body.length == .known(5))
        _ = try await Data(collecting: body, upTo: 100)
        _ = try await Data(collecting: body, upTo: 100)
        #expect(reports.withLock { $0 } == [5, 5])
    }
}
