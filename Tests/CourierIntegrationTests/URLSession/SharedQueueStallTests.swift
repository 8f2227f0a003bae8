import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import CourierURLSession
import Foundation
import HTTPTypes
import Testing

/// FoundationNetworking runs every session's work on one process-wide serial queue, and
/// `dataTask(with:)` and `resume()` wait for it. While it parses a large head (quadratically in
/// its lines) URLSession requests made meanwhile must not hold threads of the cooperative pool:
/// on a two-core machine that pool is two threads, and every deadline, idle timeout and retry
/// of the process would wait with them (the suite's stalls under load came from here).
@Suite("URLSessionTransport: a busy FoundationNetworking queue holds no cooperative thread", .serialized)
struct SharedQueueStallTests {
    /// Lines in the hostile head: FoundationNetworking takes seconds over it.
    static let hostileLines = "25000"

    @Test("while one URLSession request's 25,000-line head is parsed, more URLSession requests wait without stalling an AsyncHTTPClient deadline")
    func deadlinesElsewhereHold() async {
        // In a process of its own (an exit test): the measurement is of this process's pool, not
        // of the hundreds of tests running beside it.
        await #expect(processExitsWith: .success) {
            try await withFaultServer { (server: FaultServer) async throws in
                let urlSession = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(120)), transport: URLSessionTransport())
                let hostile = Task { try? await urlSession.send(Request<Data>(path: "/short-headers", query: [.init(name: "n", value: SharedQueueStallTests.hostileLines)])) }
                // Let the hostile head reach FoundationNetworking's queue.
                try await Task.sleep(for: .milliseconds(500))
                // A deadline on another transport, started before anything else can hold the
                // pool: 500 ms, checked against 5 × the limit + 1 s.
                let started = ContinuousClock.now
                let other = Task {
                    let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .milliseconds(500)), transport: AsyncHTTPClientTransport())
                    do {
                        _ = try await client.send(Request<Data>(path: "/never"))
                        return false
                    } catch {
                        return (error as? APIError)?.kind == .timeout
                    }
                }
                // More URLSession requests than the pool has threads: before, each waited for
                // that queue in `dataTask(with:)` on a thread of the pool (measured: 31 s during a
                // 60,000-line head).
                let waiting = (0..<4).map { _ in Task { try? await urlSession.send(Request<Data>(path: "/ok")) } }
                guard await other.value else { exit(2) }
                let elapsed = started.duration(to: .now)
                if elapsed > .milliseconds(3_500) {
                    print("a 500 ms deadline was reported after \(elapsed): the cooperative pool was held")
                    exit(3)
                }
                for task in waiting { _ = await task.value }
                _ = await hostile.value
            }
        }
    }
}
