import Courier
import CourierTestServer
import Foundation
import NIOCore

/// Starts a ``RangeServer`` for `body` and stops it afterwards.
func withRangeServer(_ behavior: RangeServer.Behavior, _ body: (RangeServer) async throws -> Void) async throws {
    let server = try await RangeServer.start(behavior)
    do { try await body(server) } catch { await server.stop(); throw error }
    await server.stop()
}

enum RangeResume {
    /// The file every large test downloads: one seed, so the process makes its 64 MiB once.
    static let size = 64 << 20
    static let seed: UInt64 = 7
    /// The server's chunk, the unit of "bytes transferred ≤ size + cuts × one chunk".
    static let chunk = 64 * 1024

    /// A client over `kind` that resumes by a RetryMiddleware with short backoffs and a budget
    /// that never runs out (unless one is given), and a generous deadline (a hang guard).
    static func client(_ kind: TransportKind, _ server: RangeServer, maxAttempts: Int = 3,
                       budget: RetryBudget = RetryBudget(minRetriesPerSecond: 1000),
                       configure: (inout APIConfiguration) -> Void = { _ in }) -> APIClient {
        var configuration = APIConfiguration(baseURL: server.baseURL, timeout: .seconds(120))
        configure(&configuration)
        let policy = RetryPolicy(maxAttempts: maxAttempts, initialDelay: .milliseconds(1), maxDelay: .milliseconds(10), jitter: .none)
        return APIClient(configuration: configuration, transport: kind.makeTransport(),
                         middleware: [RetryMiddleware(policy: policy, budget: budget)])
    }

    static let file = Request<Data>(path: "/file")

    /// The first `count` bytes of the file at `url` equal the first `count` of `content`.
    static func prefixMatches(_ url: URL, _ content: ByteBuffer, count: Int) throws -> Bool {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var offset = 0
        while offset < count {
            let block = try handle.read(upToCount: min(1 << 20, count - offset)) ?? Data()
            guard !block.isEmpty, content.getBytes(at: content.readerIndex + offset, length: block.count).map({ Data($0) }) == block else { return false }
            offset += block.count
        }
        return true
    }

    /// A progress handler that records whether the count ever went down, and the last report.
    final class ProgressWatch: Sendable {
        private let state = Locked<(last: Int64, wentBack: Bool, report: TransferProgress?)>((-1, false, nil))

        var handler: TransferProgressHandler {
            { [state] progress in
                state.withLock { state in
                    if progress.completedBytes < state.last { state.wentBack = true }
                    state.last = progress.completedBytes
                    state.report = progress
                }
            }
        }
        var neverWentBack: Bool { state.withLock { !$0.wentBack } }
        var last: TransferProgress? { state.withLock { $0.report } }
    }
}
