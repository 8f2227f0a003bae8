import Foundation
import Hummingbird

/// Cookie routes: `GET /cookies/set?name=&value=` answers with `Set-Cookie: name=value; Path=/`,
/// and `GET /cookies` echoes the `Cookie` header it received as `{"cookie": "…"}` (empty when none).
enum CookieRoutes {
    /// Adds the cookie routes to `router`.
    static func add(to router: TestServerRouter) {
        router.get("/cookies/set") { request, _ in
            let name = request.queryValue("name") ?? "session"
            let value = request.queryValue("value") ?? "1"
            return try Reply.json(["set": name], headers: [.setCookie: "\(name)=\(value); Path=/"])
        }
        router.get("/cookies") { request, _ in
            try Reply.json(["cookie": request.headers[.cookie] ?? ""])
        }
    }
}
