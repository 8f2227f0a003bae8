import Foundation
import Hummingbird

/// Routes that answer what a hostile server would: `/hostile/error` and `/hostile/tokens`.
enum HostileRoutes {
    /// Adds the hostile routes to `router`.
    static func add(to router: TestServerRouter) {
        // GET /hostile/error?status=400&message=TEXT&raw=TEXT: `status` (400...599) with
        // {"message": TEXT} (any characters: line breaks, ESC, bidi overrides), followed by
        // `raw` written as it is after the JSON document, so the body prefix carries it too.
        router.get("/hostile/error") { request, _ in
            let code = request.queryInt("status", default: 400)
            let encoded = try JSONEncoder().encode(["message": request.queryValue("message") ?? ""])
            let body = Array(encoded) + Array((request.queryValue("raw") ?? "").utf8)
            return Reply.raw(body, status: .init(code: (400...599).contains(code) ? code : 400), contentType: "application/json")
        }

        // POST /hostile/tokens: an OAuth-style token answer with secrets at several depths,
        // {"access_token": …, "refresh_token": …, "token_type": "bearer", "user": {"name": "ada", "password": …}}.
        router.post("/hostile/tokens") { _, _ in
            struct User: Encodable { let name: String; let password: String }
            struct Tokens: Encodable {
                let access_token: String
                let refresh_token: String
                let token_type: String
                let user: User
            }
            return try Reply.json(Tokens(access_token: "AT-SERVER-SECRET", refresh_token: "RT-SERVER-SECRET", token_type: "bearer",
                                         user: User(name: "ada", password: "PW-SERVER-SECRET")))
        }
    }
}
