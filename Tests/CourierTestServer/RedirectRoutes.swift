import Foundation
import Hummingbird

/// Redirect routes: `/redirect/{n}`, `/redirect-to` (any method) and `/redirect-loop`.
enum RedirectRoutes {
    /// Adds the redirect routes to `router`.
    static func add(to router: TestServerRouter) {
        // GET /redirect/{n}: 302 to /redirect/{n-1}; /redirect/0 answers like /echo.
        router.get("/redirect/{n}") { request, context in
            guard let n = context.parameters.get("n", as: Int.self), n >= 0 else {
                return try Reply.error(.badRequest, code: "bad_request", message: "n must be a number >= 0")
            }
            if n == 0 {
                return try await EchoRoutes.echo(request)
            }
            return Reply.empty(.found, headers: [.location: "/redirect/\(n - 1)"])
        }

        // ANY /redirect-to?url=<absolute or relative>&status=<3xx, default 302>&body=<text>: with
        // `body`, the redirect carries it as text/html, as nginx and Express do.
        router.onAnyMethod("/redirect-to") { request, _ in
            guard let url = request.queryValue("url"), !url.isEmpty else {
                return try Reply.error(.badRequest, code: "bad_request", message: "url is required")
            }
            let code = request.queryInt("status", default: 302)
            guard (300...399).contains(code) else {
                return try Reply.error(.badRequest, code: "bad_request", message: "status must be 300...399")
            }
            if let body = request.queryValue("body") {
                return Reply.raw(Array(body.utf8), status: HTTPResponse.Status(code: code), contentType: "text/html", headers: [.location: url])
            }
            return Reply.empty(HTTPResponse.Status(code: code), headers: [.location: url])
        }

        // GET /redirect-loop: 302 to itself, forever.
        router.get("/redirect-loop") { _, _ in
            Reply.empty(.found, headers: [.location: "/redirect-loop"])
        }
    }
}
