import Hummingbird
import HTTPTypes

/// The bench server's cacheable routes, for the HTTP cache scenarios (``CacheScenarios``) and
/// the store's memory probe (``CacheMemoryProbe``).
///
/// - ``Fixtures/cachedUsersPath``: the users JSON, fresh for a year (`max-age`), with an `ETag`;
///   a cache serves it from memory after the first request.
/// - ``Fixtures/revalidatedPath``: a 64 KiB body with `Cache-Control: no-cache` and an `ETag`,
///   so a cache revalidates it on every request: `304 Not Modified` (no body) when
///   `If-None-Match` names the tag, else `200` with the body.
/// - ``Fixtures/cachedItemsPath``/`N`: the users JSON under as many distinct URLs as asked, fresh
///   for a year (the store's bound with 10,000 distinct URLs).
enum CacheRoutes {
    /// The entity tag of every cacheable route (the bodies never change).
    static let entityTag = "\"courier-bench-v1\""

    /// Adds the routes to `router`.
    static func add(to router: Router<BasicRequestContext>, users: ByteBuffer) {
        let revalidated = ByteBuffer(bytes: Fixtures.revalidatedBody)
        router.get(RouterPath(stringLiteral: Fixtures.cachedUsersPath)) { request, _ in
            answer(request, body: users, contentType: "application/json", cacheControl: "max-age=31536000")
        }
        router.get(RouterPath(stringLiteral: Fixtures.revalidatedPath)) { request, _ in
            answer(request, body: revalidated, contentType: "application/octet-stream", cacheControl: "no-cache")
        }
        router.get(RouterPath(stringLiteral: Fixtures.cachedItemsPath + "/{id}")) { request, _ in
            answer(request, body: users, contentType: "application/json", cacheControl: "max-age=31536000")
        }
    }

    /// `304` with the validators when `If-None-Match` names ``entityTag``, else `200` with `body`.
    private static func answer(_ request: Request, body: ByteBuffer, contentType: String, cacheControl: String) -> Response {
        let fields: HTTPFields = [.cacheControl: cacheControl, .eTag: entityTag]
        if let tags = request.headers[.ifNoneMatch], tags.contains(entityTag) {
            return Response(status: .notModified, headers: fields)
        }
        var headers = fields
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
