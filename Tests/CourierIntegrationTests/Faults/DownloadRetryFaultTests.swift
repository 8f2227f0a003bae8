import Courier
import CourierTestServer
import Foundation
import Testing

/// A download whose first attempt is cut mid-body: whatever comes next, the file never holds
/// the first attempt's bytes as if they were the answer.
@Suite("Downloads cut mid-body, then retried")
struct DownloadRetryFaultTests {
    private static let retries = RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(10), maxDelay: .seconds(1))

    @Test("a download cut mid-body and retried into a 204 or 304 is that answer, an empty file: never the first attempt's bytes",
          arguments: TransportKind.allCases, [204, 304])
    func retriedIntoNoBody(_ kind: TransportKind, status: Int) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withFaultServer { (server: FaultServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(60)),
                                   transport: kind.makeTransport(), middleware: [RetryMiddleware(policy: Self.retries)])
            let file = directory.appendingPathComponent("download.bin")
            var request = Request<Data>(path: "/partial-once/\(kind.rawValue)-\(status)-\(UUID().uuidString)", query: [.init(name: "status", value: "\(status)")])
            request.options.acceptableStatusCodes = [200, 204, 304]
            // The cut reaches the download (the retry middleware leaves a download's body to
            // it), which has nothing to resume with (no validator): it starts again from zero,
            // by the middleware's policy, and gets the bodiless answer.
            let result = try await client.download(request, to: file)
            print("download cut, then \(status) [\(kind.rawValue)]: \(result.byteCount) bytes after \(server.requestCount) requests")
            #expect(server.requestCount == 2, "the cut attempt and the retry")
            #expect(result.byteCount == 0)
            #expect(try Data(contentsOf: file).isEmpty, "the file holds the first attempt's bytes")
        }
    }
}
