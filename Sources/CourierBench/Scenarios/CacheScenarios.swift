import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation

/// Courier with a ``CachingMiddleware`` (a ``MemoryCacheStore`` with its default limits) against
/// Courier without one, over ``AsyncHTTPClientTransport`` on the `HTTPClient` of `ahc.courier`.
///
/// - `cache.hit` against `cache.network`: the users JSON (``Fixtures/cachedUsersPath``, fresh
///   for a year), answered from the store against fetched over the network and decoded alike
///   (target: a hit costs ≤ 10 % of the CPU of the request it saves).
/// - `cache.hit.bytes` against `cache.network.bytes`: the same, both taking the body as `Data`
///   (`data(for:)`), no decoding. Decoding is the caller's work, which a cache cannot save: the
///   decoded pair's floor is the decoder's share of a network request (≈ 10 % here).
/// - `cache.hit.disk.bytes` against `cache.network.bytes`: the same as `cache.hit.bytes` from a
///   ``DiskCacheStore`` (in ``diskDirectory``, removed at the end of the run): a file opened, read
///   and its metadata parsed per hit (target: a hit costs less than the request it saves).
/// - `cache.revalidated` against `cache.full`: a 64 KiB body that must be revalidated every time
///   (`no-cache`, ``Fixtures/revalidatedPath``): a `304` and the stored body, against the `200`
///   with the body a client without a cache receives (target: the `304` costs ≤ the `200`).
///
/// The store is filled before the scenarios are returned (one request per cached path), and
/// each cached request then checks the outcome it expects (``CacheOutcome/hit``,
/// ``CacheOutcome/revalidated``), so a scenario cannot measure something else unnoticed.
enum CacheScenarios {
    /// Where `cache.hit.disk.bytes` keeps its store: one directory per process, made anew.
    static let diskDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("courier-bench-disk-cache-\(ProcessInfo.processInfo.processIdentifier)")

    /// Removes ``diskDirectory`` (at the end of a run).
    static func removeDiskDirectory() {
        try? FileManager.default.removeItem(at: diskDirectory)
    }

    /// The seven scenarios, sharing `ahc`'s Courier `HTTPClient`, with the caches filled.
    static func scenarios(baseURL: URL, ahc: AHCScenarios) async throws -> [Scenario] {
        let configuration = APIConfiguration(baseURL: baseURL)
        let transport = AsyncHTTPClientTransport(client: ahc.courier, clientReadTimeout: AsyncHTTPClientTransport.recommendedReadTimeout)
        let plain = APIClient(configuration: configuration, transport: transport)
        let cached = APIClient(configuration: configuration, transport: transport, middleware: [CachingMiddleware(store: MemoryCacheStore())])
        removeDiskDirectory()
        let onDisk = APIClient(configuration: configuration, transport: transport,
                               middleware: [CachingMiddleware(store: DiskCacheStore(directory: diskDirectory))])
        // Filled first: requests in flight together before anything is stored would all miss.
        try await cached.send(CachedUsers()).check()
        _ = try await onDisk.data(for: CachedUsers())
        _ = try await cached.send(RevalidatedBody())
        return [
            Scenario(key: "cache.network", label: "Courier, no cache: GET users JSON (AHC)", family: "cache") {
                try await plain.send(CachedUsers()).check()
            },
            Scenario(key: "cache.hit", label: "Courier + CachingMiddleware: fresh hit, users JSON", family: "cache") {
                let response = try await cached.response(for: CachedUsers())
                try response.value.check()
                try expect(.hit, response.metrics.cacheOutcome)
            },
            Scenario(key: "cache.network.bytes", label: "Courier, no cache: users JSON as Data (AHC)", family: "cache") {
                let (_, data) = try await plain.data(for: CachedUsers())
                guard data.count == Fixtures.usersJSON.count else { throw UnexpectedAnswer(description: "a body of \(data.count) bytes") }
            },
            Scenario(key: "cache.hit.bytes", label: "Courier + CachingMiddleware: fresh hit, users JSON as Data", family: "cache") {
                let (head, data) = try await cached.data(for: CachedUsers())
                guard data.count == Fixtures.usersJSON.count else { throw UnexpectedAnswer(description: "a body of \(data.count) bytes") }
                try expect(.hit, head.cacheOutcome)
            },
            Scenario(key: "cache.hit.disk.bytes", label: "Courier + CachingMiddleware(DiskCacheStore): fresh hit, users JSON as Data", family: "cache") {
                let (head, data) = try await onDisk.data(for: CachedUsers())
                guard data.count == Fixtures.usersJSON.count else { throw UnexpectedAnswer(description: "a body of \(data.count) bytes") }
                try expect(.hit, head.cacheOutcome)
            },
            Scenario(key: "cache.full", label: "Courier, no cache: 200 with 64 KiB (AHC)", family: "cache") {
                let body = try await plain.send(RevalidatedBody())
                guard body.count == Fixtures.revalidatedSize else { throw UnexpectedAnswer(description: "a body of \(body.count) bytes") }
            },
            Scenario(key: "cache.revalidated", label: "Courier + CachingMiddleware: 304, stored 64 KiB", family: "cache") {
                let response = try await cached.response(for: RevalidatedBody())
                guard response.value.count == Fixtures.revalidatedSize else { throw UnexpectedAnswer(description: "a body of \(response.value.count) bytes") }
                try expect(.revalidated, response.metrics.cacheOutcome)
            },
        ]
    }

    private static func expect(_ outcome: CacheOutcome, _ actual: CacheOutcome?) throws {
        guard actual == outcome else { throw UnexpectedAnswer(description: "cache outcome \(actual.map(\.rawValue) ?? "none"), expected \(outcome.rawValue)") }
    }
}

/// `GET /cached/users`: the users JSON, cacheable for a year.
struct CachedUsers: APIRequest {
    typealias Response = [BenchUser]
    /// ``Fixtures/cachedUsersPath``.
    var path: RequestPath { RequestPath(verbatim: Fixtures.cachedUsersPath) }
}

/// `GET /cached/revalidated`: 64 KiB that a cache revalidates on every request.
struct RevalidatedBody: APIRequest {
    typealias Response = Data
    /// ``Fixtures/revalidatedPath``.
    var path: RequestPath { RequestPath(verbatim: Fixtures.revalidatedPath) }
}

/// `GET /cached/items/N`: the users JSON under the `N`th of many distinct URLs.
struct CachedItem: APIRequest {
    typealias Response = [BenchUser]
    /// Which URL.
    var id: Int
    /// ``Fixtures/cachedItemsPath``/`id`.
    var path: RequestPath { RequestPath(verbatim: "\(Fixtures.cachedItemsPath)/\(id)") }
}
