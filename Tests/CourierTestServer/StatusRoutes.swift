import Foundation
import Hummingbird

/// Routes that answer a chosen status or a fixed body: `/status/{code}`, `/flaky/{key}`,
/// `/json/invalid` and `/text`.
enum StatusRoutes {
    /// Adds the status routes to `router`.
    static func add(to router: TestServerRouter, state: TestServerState) {
        // GET /status/{code}: that status with {"message": "status <code>"}; 204/304 with no body.
        router.get("/status/{code}") { _, context in
            guard let code = context.parameters.get("code", as: Int.self), (200...599).contains(code) else {
                return try Reply.error(.badRequest, code: "bad_request", message: "The status must be 200...599")
            }
            let status = HTTPResponse.Status(code: code)
            if code == 204 || code == 304 {
                return Reply.empty(status)
            }
            return try Reply.json(["message": "status \(code)"], status: status)
        }

        // GET /flaky/{key}?failures=N&status=503&retryAfter=S
        router.get("/flaky/{key}") { request, context in
            let key = context.parameters.get("key") ?? ""
            let failures = request.queryInt("failures", default: 1)
            let code = request.queryInt("status", default: 503)
            let attempt = state.nextFlakyAttempt(for: key)
            guard attempt > failures else {
                var headers: HTTPFields = [:]
                if let retryAfter = request.queryValue("retryAfter") {
                    headers[.retryAfter] = retryAfter
                }
                let status = HTTPResponse.Status(code: (200...599).contains(code) ? code : 503)
                return try Reply.json(FlakyFailure(error: "flaky", attempt: attempt), status: status, headers: headers)
            }
            return try Reply.json(["attempts": attempt])
        }

        // GET /json/invalid: declared JSON, truncated body.
        router.get("/json/invalid") { _, _ in
            Reply.raw(Array(#"{"id": "not a number""#.utf8), contentType: "application/json")
        }

        // GET /text: "hello" as plain text.
        router.get("/text") { _, _ in
            Reply.raw(Array("hello".utf8), contentType: "text/plain; charset=utf-8")
        }
    }
}

/// The body of a failing `/flaky/{key}` answer.
struct FlakyFailure: Encodable {
    /// Always `"flaky"`.
    let error: String
    /// Which attempt for this key this was (1-based).
    let attempt: Int
}
