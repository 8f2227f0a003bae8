import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// `download(_:to:)` over URLSession goes through a download task: the session writes the body
/// to a file of its own and tells the transport at the end — on Linux on FoundationNetworking's
/// work queue, which every URLSession request in the process shares. Nothing long may happen
/// there: a body that is not the download's (an error status) is read back only as far as any
/// reader of an error body goes, and a file that must be copied to another volume is copied
/// elsewhere.
@Suite("Download tasks")
struct DownloadTaskTests {
    /// Reads the whole body of a response with status `status`, recording how many bytes it got
    /// and whether the body ended in an error, and hands on what it read.
    private struct ReadsErrorBody: Middleware {
        let status: Int
        let seen: Locked<(bytes: Int, error: (any Error)?)?>

        func intercept(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext,
                       next: HTTPHandler) async throws -> (HTTPResponse, HTTPBody?) {
            let (head, responseBody) = try await next(request, body, context)
            guard head.status.code == status, let responseBody else { return (head, responseBody) }
            var bytes = [UInt8]()
            var failure: (any Error)?
            do {
                for try await chunk in responseBody { bytes += chunk }
            } catch {
                failure = error
            }
            seen.withLock { $0 = (bytes.count, failure) }
            return (head, HTTPBody(bytes))
        }
    }

    @Test("a download answered with a long error body reads back only its first 64 KiB, and a reader that reads on is told",
          .timeLimit(.minutes(1)))
    func longErrorBody() async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let size = 4 * 1024 * 1024
        try await withTestServer { server in
            let seen = Locked<(bytes: Int, error: (any Error)?)?>(nil)
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: TransportKind.urlSession.makeTransport(),
                                   middleware: [ReadsErrorBody(status: 500, seen: seen)])
            let destination = dir.appendingPathComponent("d")
            let error = await #expect(throws: APIError.self) {
                try await client.download(Request<Data>(path: "/transfers/download/\(UUID().uuidString)/\(size)?status=500"), to: destination)
            }
            #expect(error?.statusCode == 500)
            let (bytes, failure) = try #require(seen.withLock { $0 })
            #expect(bytes == 64 * 1024, "the transport read back \(bytes) bytes of a \(size)-byte error body")
            #expect("\(failure.map { "\($0)" } ?? "")".contains("64 KiB"), "a reader that reads past the prefix is told why it ends: \(String(describing: failure))")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    @Test("a download to another volume arrives whole", .enabled(if: Self.otherVolume != nil, "needs a second volume (/dev/shm)"),
          arguments: TransportKind.allCases)
    func downloadToOtherVolume(_ kind: TransportKind) async throws {
        let dir = Self.otherVolume!.appendingPathComponent("courier-transfers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let size = 8 * 1024 * 1024 + 3
        try await withTestServer { server in
            let client = kind.client(for: server)
            let destination = dir.appendingPathComponent("d")
            let result = try await client.download(Request<Data>(path: "/transfers/download/\(UUID().uuidString)/\(size)"), to: destination)
            #expect(result.byteCount == Int64(size))
            let data = try Data(contentsOf: destination)
            #expect(data.count == size)
            #expect(data.allSatisfy { $0 == UInt8(ascii: "a") })
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["d"])
        }
    }

    /// A directory on another volume than the temporary directory, where the session writes
    /// its download files (`/dev/shm`, a tmpfs on Linux), or `nil` when there is none.
    static let otherVolume: URL? = {
        func device(of url: URL) -> UInt64? {
            (try? FileManager.default.attributesOfItem(atPath: url.path)[.systemNumber] as? NSNumber)?.uint64Value
        }
        let candidate = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        guard let here = device(of: FileManager.default.temporaryDirectory), let there = device(of: candidate), here != there,
              FileManager.default.isWritableFile(atPath: candidate.path) else { return nil }
        return candidate
    }()
}
