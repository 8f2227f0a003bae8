import Foundation
import Hummingbird
import HTTPTypes
import Synchronization

/// The demo API's cacheable routes (under `/v1`, so they need the API key too), and how many
/// requests each has answered, so the demo can show which calls reached the server.
///
/// - `GET /v1/countries` → `[String]` with `Cache-Control: max-age=60` and an `ETag`: a cache
///   serves it for a minute without asking again.
/// - `GET /v1/settings` → `DemoSettings` with `Cache-Control: no-cache` and an `ETag`: a cache
///   must revalidate it on every use; `304 Not Modified` (no body) when `If-None-Match` names
///   the tag.
/// - `GET /v1/cache-stats` → `DemoCacheStats` (`Cache-Control: no-store`): the requests the two
///   routes above have answered, by kind.
enum DemoCacheRoutes {
    /// The entity tag of both cacheable bodies (they never change).
    static let entityTag = "\"demo-v1\""

    /// Adds the routes to `group`, with counters of their own.
    static func add(to group: RouterGroup<BasicRequestContext>) {
        let counter = DemoCacheCounter()
        group.get("countries") { request, _ in
            try answer(request, DemoRoutes.countries, cacheControl: "max-age=60", counter: counter) { stats, notModified in
                if notModified { stats.countries304 += 1 } else { stats.countries200 += 1 }
            }
        }
        group.get("settings") { request, _ in
            try answer(request, DemoSettings(theme: "dark", pageSize: 25), cacheControl: "no-cache", counter: counter) { stats, notModified in
                if notModified { stats.settings304 += 1 } else { stats.settings200 += 1 }
            }
        }
        group.get("cache-stats") { _, _ in
            var response = try DemoRoutes.json(counter.stats.withLock { $0 })
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// `304` with the validators when `If-None-Match` names ``entityTag``, else `200` with `value`
    /// as JSON; `count` records which.
    private static func answer(_ request: Request, _ value: some Encodable, cacheControl: String, counter: DemoCacheCounter,
                               count: (inout DemoCacheStats, _ notModified: Bool) -> Void) throws -> Response {
        let notModified = request.headers[.ifNoneMatch]?.contains(entityTag) ?? false
        counter.stats.withLock { count(&$0, notModified) }
        var response = notModified ? Response(status: .notModified) : try DemoRoutes.json(value)
        response.headers[.cacheControl] = cacheControl
        response.headers[.eTag] = entityTag
        return response
    }
}

/// The cacheable routes' answers so far, shared by their handlers.
final class DemoCacheCounter: Sendable {
    /// The counts, under a lock.
    let stats = Mutex(DemoCacheStats())
}

extension DemoRoutes {
    /// The body of `GET /v1/countries`.
    static let countries = ["France", "Ghana", "Japan", "Peru", "Sweden"]
}

/// The body of `GET /v1/settings`.
struct DemoSettings: Codable, Sendable, Equatable {
    var theme: String
    var pageSize: Int
}

/// The body of `GET /v1/cache-stats`: the answers of the cacheable routes so far.
struct DemoCacheStats: Codable, Sendable, Equatable {
    var countries200 = 0
    var countries304 = 0
    var settings200 = 0
    var settings304 = 0
}
