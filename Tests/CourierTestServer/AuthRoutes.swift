import Foundation
import Hummingbird

/// Bearer-token routes for authentication and token-refresh tests:
/// `/auth/protected`, `/auth/rotate`, `/auth/refresh-count`, and `/auth/challenge/{scheme}`
/// (always `401` with `WWW-Authenticate: <Scheme> realm="courier"` and a JSON body).
///
/// The valid token starts as `token-1`; each `POST /auth/rotate` makes it `token-<n+1>`.
enum AuthRoutes {
    /// Adds the auth routes to `router`.
    static func add(to router: TestServerRouter, state: TestServerState) {
        router.get("/auth/protected") { request, _ in
            guard request.headers[.authorization] == "Bearer \(state.currentToken)" else {
                return try Reply.error(
                    .unauthorized,
                    code: "unauthorized",
                    message: "missing or expired bearer token",
                    headers: [.wwwAuthenticate: "Bearer"]
                )
            }
            return try Reply.json(["user": "ok"])
        }

        // GET /auth/challenge/basic|bearer|digest: 401 with that challenge, whatever is sent.
        router.get("/auth/challenge/{scheme}") { _, context in
            let scheme = context.parameters.get("scheme") ?? "basic"
            let challenge = scheme.prefix(1).uppercased() + scheme.dropFirst() + #" realm="courier""#
                + (scheme == "digest" ? #", nonce="abc", qop="auth""# : "")
            return try Reply.error(.unauthorized, code: "unauthorized", message: "credentials required",
                                   headers: [.wwwAuthenticate: challenge])
        }

        router.post("/auth/rotate") { _, _ in
            try Reply.json(["token": state.rotateToken()])
        }

        router.get("/auth/refresh-count") { _, _ in
            try Reply.json(["count": state.rotationCount])
        }
    }
}
