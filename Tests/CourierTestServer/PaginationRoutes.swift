import Foundation
import Hummingbird

/// Pagination routes that misbehave: `GET /pages/cycle/{n}` answers `[n]` with a `Link` to the
/// next page that wraps round (`?size=` pages, default 2: 1 → 2 → 1 …), and `GET /cursor-cycle`
/// answers `{"items": [cursor], "nextCursor": …}` with the cursors `a → b → c → a …`.
enum PaginationRoutes {
    /// Adds the pagination routes to `router`.
    static func add(to router: TestServerRouter) {
        router.get("/pages/cycle/{n}") { request, context in
            let n = context.parameters.get("n", as: Int.self) ?? 1
            let size = max(1, request.queryInt("size", default: 2))
            let next = n % size + 1
            let query = size == 2 ? "" : "?size=\(size)"
            return try Reply.json([n], headers: [.init("Link")!: "</pages/cycle/\(next)\(query)>; rel=\"next\""])
        }
        router.get("/cursor-cycle") { request, _ in
            let cursor = request.queryValue("cursor") ?? "a"
            let next = ["a": "b", "b": "c", "c": "a"][cursor] ?? "a"
            return try Reply.json(CursorPage(items: [cursor], nextCursor: next))
        }
    }
}

/// A page of `/cursor-cycle`.
struct CursorPage: Codable {
    var items: [String]
    var nextCursor: String?
}
