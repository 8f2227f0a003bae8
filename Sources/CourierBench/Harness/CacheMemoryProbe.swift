import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import Synchronization

/// The memory store's bound, measured in fresh child processes (`--cache-probe with|without
/// PORT`): Courier over AsyncHTTPClient sends 10,000 requests for distinct URLs
/// (``Fixtures/cachedItemsPath``/`N`, the users JSON, each fresh for a year, so every response
/// is stored) at 64 in flight, once through a ``CachingMiddleware`` on a ``MemoryCacheStore``
/// with its default limits and once without a cache. The figures: each child's peak resident
/// memory above its baseline (`VmHWM`, reset after a warm-up), and the store's entry count and
/// bytes at the end, which must be within its limits.
enum CacheMemoryProbe {
    /// What one child measured.
    struct Result: Codable, Sendable {
        /// Whether the requests went through the cache.
        var cached: Bool
        /// Distinct URLs requested.
        var requests: Int
        /// Resident memory before the requests, in bytes.
        var baselineRSS: Int
        /// Peak resident memory at the end, in bytes.
        var peakRSS: Int
        /// Resident memory at the end, in bytes.
        var finalRSS: Int
        /// Entries in the store at the end (0 without a cache).
        var storeCount: Int
        /// Bytes of the store's entries at the end (0 without a cache).
        var storeBytes: Int
        /// The store's entry limit (its default).
        var maxEntries: Int
        /// The store's byte limit (its default).
        var maxBytes: Int

        /// The peak above the baseline, in bytes.
        var peakAboveBaseline: Int { max(0, peakRSS - baselineRSS) }
        /// Whether the store stayed within its limits.
        var storeWithinLimits: Bool { storeCount <= maxEntries && storeBytes <= maxBytes }
    }

    /// Distinct URLs per child.
    static let requests = 10_000

    /// Runs both children (with the cache, then without) and collects their results.
    static func runAll(port: Int, log: (String) -> Void) throws -> [Result] {
        try ["with", "without"].map { side in
            let output = try ServerProcess.runChild(["--cache-probe", side, String(port)])
            guard let line = output.split(separator: "\n").last,
                  let result = try? JSONDecoder().decode(Result.self, from: Data(line.utf8)) else {
                throw OptionsError("the cache probe (\(side)) printed no result")
            }
            log("cache probe \(side) cache: \(result.requests) distinct URLs, peak +\(result.peakAboveBaseline / 1024) KiB, store \(result.storeCount) entries, \(result.storeBytes / 1024) KiB")
            return result
        }
    }

    /// The child side: sends the distinct requests, with or without the cache, and prints the
    /// result as JSON.
    static func run(cached: Bool, port: Int) async throws {
        let baseURL = URL(string: "http://127.0.0.1:\(port)")!
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.recommendedConfiguration())
        let store = MemoryCacheStore()
        let client = APIClient(configuration: APIConfiguration(baseURL: baseURL),
                               transport: AsyncHTTPClientTransport(client: http, clientReadTimeout: AsyncHTTPClientTransport.recommendedReadTimeout),
                               middleware: cached ? [CachingMiddleware(store: store)] : [])
        // Warm-up on URLs outside the measured range, then the store is emptied.
        for id in 0..<64 { try await client.send(CachedItem(id: -1 - id)).check() }
        await store.removeAll()
        ResourceUsage.resetPeak()
        var result = Result(cached: cached, requests: requests, baselineRSS: ResourceUsage.currentRSS(), peakRSS: 0, finalRSS: 0,
                            storeCount: 0, storeBytes: 0, maxEntries: store.maxEntries, maxBytes: store.maxBytes)
        let ids = DistinctIDs()
        try await Runner.concurrently(requests: requests, inFlight: 64) {
            let id = ids.next()
            try await client.send(CachedItem(id: id)).check()
        }
        result.peakRSS = ResourceUsage.now().peakRSS
        result.finalRSS = ResourceUsage.currentRSS()
        result.storeCount = cached ? store.count : 0
        result.storeBytes = cached ? store.totalBytes : 0
        try await http.shutdown()
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }
}

/// Hands out 0, 1, 2, … to concurrent workers, each number once.
private final class DistinctIDs: Sendable {
    private let counter = Atomic<Int>(0)

    /// The next number.
    func next() -> Int { counter.add(1, ordering: .relaxed).oldValue }
}
