import Foundation
import Hummingbird

/// Routes for the HTTP cache's tests. Every route is keyed by `key`, so tests never share counts.
///
/// - `GET /cache/resource?key=K[&cc=…][&etag=…][&lastModified=…][&vary=…][&expires=…][&setCookie=…][&size=n]`
///   answers `{"n": <how many full responses K has had>, "varied": <the value of the field `vary`
///   names, or "-">, "padding": <size bytes>}` with `Cache-Control: cc`, `ETag`, `Last-Modified`,
///   `Vary`, `Expires`, `Set-Cookie` as given, and a `Date`. A request whose `If-None-Match`
///   equals `etag`, or whose `If-Modified-Since` equals `lastModified`, gets `304 Not Modified`
///   with the same validators and `Cache-Control`. While K is failing it answers `503`.
/// - `POST /cache/resource?key=K[&location=…][&contentLocation=…]` answers `201` with those fields.
/// - `GET /cache/stats?key=K` answers `{"full": n, "notModified": n, "failed": n}`.
/// - `POST /cache/fail?key=K&on=true|false` makes K fail (or recover).
enum CacheRoutes {
    struct Stats: Codable, Sendable {
        var full: Int
        var notModified: Int
        var failed: Int
    }

    /// Adds the cache routes to `router`.
    static func add(to router: TestServerRouter, state: TestServerState) {
        router.get("/cache/resource") { request, _ in
            let key = request.queryValue("key") ?? "-"
            if state.isFailing(key) {
                _ = state.increment(key + ":failed")
                return try Reply.error(.serviceUnavailable, code: "down", message: "failing on purpose")
            }
            var fields = HTTPFields()
            if let value = request.queryValue("cc") { fields[.cacheControl] = value }
            if let value = request.queryValue("etag") { fields[.eTag] = value }
            if let value = request.queryValue("lastModified") { fields[.lastModified] = value }
            let etagMatches = request.queryValue("etag").map { $0 == request.headers[.ifNoneMatch] } ?? false
            let dateMatches = request.queryValue("lastModified").map { $0 == request.headers[.ifModifiedSince] } ?? false
            if etagMatches || dateMatches {
                _ = state.increment(key + ":304")
                return Reply.empty(.notModified, headers: fields)
            }
            if let value = request.queryValue("vary") { fields[.vary] = value }
            if let value = request.queryValue("expires") { fields[.expires] = value }
            if let value = request.queryValue("setCookie") { fields[.setCookie] = value }
            let varied = request.queryValue("vary").flatMap { name in
                request.headers.first { $0.name.rawName.lowercased() == name.lowercased() }?.value
            } ?? "-"
            let padding = String(repeating: "p", count: min(max(request.queryInt("size", default: 0), 0), 4 << 20))
            let count = state.increment(key + ":200")
            return try Reply.json(["n": "\(count)", "varied": varied, "padding": padding], headers: fields)
        }
        router.post("/cache/resource") { request, _ in
            var fields = HTTPFields()
            if let value = request.queryValue("location") { fields[.location] = value }
            if let value = request.queryValue("contentLocation") { fields[.contentLocation] = value }
            return try Reply.json(["created": true], status: .created, headers: fields)
        }
        router.get("/cache/stats") { request, _ in
            let key = request.queryValue("key") ?? "-"
            return try Reply.json(Stats(full: state.counter(key + ":200"), notModified: state.counter(key + ":304"),
                                        failed: state.counter(key + ":failed")))
        }
        router.post("/cache/fail") { request, _ in
            state.setFailing(request.queryValue("key") ?? "-", request.queryValue("on") != "false")
            return Reply.empty(.noContent)
        }
    }
}
