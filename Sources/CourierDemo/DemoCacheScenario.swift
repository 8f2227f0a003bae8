import Courier
import Foundation

/// The HTTP cache half of the demo: a client with a ``CachingMiddleware`` calls a route that is
/// fresh for a minute (the second call is a hit, the server sees one request) and a route that
/// must be revalidated every time (the second call is a `304`, the stored body is returned).
struct DemoCacheScenario {
    /// Builds a client with the given middleware (the demo's transport, retry and API key).
    let makeClient: ([any Middleware]) -> APIClient

    /// Runs the steps; returns how many did not behave as expected.
    func run() async -> Int {
        print("\n=== HTTP cache (CachingMiddleware with a MemoryCacheStore) ===")
        let client = makeClient([CachingMiddleware(store: MemoryCacheStore())])
        var failures = 0
        failures += await call("GET /v1/countries (max-age=60) — first call", Countries(), on: client, expect: .miss, countries: 1)
        failures += await call("GET /v1/countries again — fresh, answered from the store", Countries(), on: client, expect: .hit, countries: 1)
        failures += await call("GET /v1/settings (no-cache, ETag) — first call", Settings(), on: client, expect: .miss, settings: 1)
        failures += await call("GET /v1/settings again — revalidated with If-None-Match", Settings(), on: client, expect: .revalidated, settings: 1, notModified: 1)
        return failures
    }

    /// Sends `request`, prints its cache outcome and the server's counts, and checks both.
    private func call<R: APIRequest>(_ title: String, _ request: R, on client: APIClient, expect outcome: CacheOutcome,
                                     countries: Int? = nil, settings: Int? = nil, notModified: Int = 0) async -> Int {
        print("\n\u{25B6} \(title)")
        do {
            let response = try await client.response(for: request)
            let stats = try await client.send(CacheStats())
            let ms = response.metrics.duration.secondsValue * 1000
            print("  \u{2190} \(response.statusCode) in \(String(format: "%.1f", ms)) ms, \(response.body.count) bytes, cache: \(response.metrics.cacheOutcome?.rawValue ?? "none")")
            let served: String
            let expected: Bool
            if let countries {
                served = "\(stats.countries200) × 200, \(stats.countries304) × 304"
                expected = stats.countries200 == countries && stats.countries304 == notModified
            } else {
                served = "\(stats.settings200) × 200, \(stats.settings304) × 304"
                expected = stats.settings200 == (settings ?? 0) && stats.settings304 == notModified
            }
            print("  server has answered this route \(served)")
            guard response.metrics.cacheOutcome == outcome, expected else {
                print("  ✗ expected cache: \(outcome.rawValue) and \(countries ?? settings ?? 0) × 200, \(notModified) × 304")
                return 1
            }
            return 0
        } catch {
            print("  \u{2190} \(error)")
            return 1
        }
    }
}

/// `GET /v1/countries` — fresh for 60 s.
private struct Countries: APIRequest {
    typealias Response = [String]
    var path: RequestPath { "/v1/countries" }
}

/// `GET /v1/settings` — revalidated on every use.
private struct Settings: APIRequest {
    typealias Response = DemoSettings
    var path: RequestPath { "/v1/settings" }
}

/// `GET /v1/cache-stats` — what the server has answered (never stored: `no-store`).
private struct CacheStats: APIRequest {
    typealias Response = DemoCacheStats
    var path: RequestPath { "/v1/cache-stats" }
}
