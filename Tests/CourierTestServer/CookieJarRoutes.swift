import Foundation
import Hummingbird

/// Routes for the cookie jar's tests:
/// - `GET /cookie-jar/set?line=<Set-Cookie value>&line=…[&location=<url>][&status=<3xx>]` answers
///   with one `Set-Cookie` field per `line`, as written; with `location`, as a redirect there
///   (302 unless `status` says otherwise), else with `{"set": <count>}`.
/// - `GET /cookie-jar/many?count=<n>&size=<bytes>` sets `n` cookies (`c0`…) of `size`-byte
///   values in one response (n ≤ 20,000, size ≤ 8,192).
/// - `GET /cookie-jar/echo` answers `{"cookies": [<each Cookie field's value>]}`, so a test sees
///   a second `Cookie` field if one was sent.
enum CookieJarRoutes {
    /// Adds the cookie-jar routes to `router`.
    static func add(to router: TestServerRouter) {
        router.get("/cookie-jar/set") { request, _ in
            let lines = request.queryValues("line")
            var fields = HTTPFields()
            fields[values: .setCookie] = lines
            if let location = request.queryValue("location") {
                fields[.location] = location
                return Reply.empty(HTTPResponse.Status(code: request.queryInt("status", default: 302)), headers: fields)
            }
            return try Reply.json(["set": lines.count], headers: fields)
        }
        router.get("/cookie-jar/echo") { request, _ in
            // Each field as received (the `values:` subscript would split a Cookie field at "; ").
            try Reply.json(["cookies": request.headers.filter { $0.name == .cookie }.map(\.value)])
        }
        router.get("/cookie-jar/many") { request, _ in
            let count = min(max(request.queryInt("count", default: 1), 0), 20_000)
            let value = String(repeating: "v", count: min(max(request.queryInt("size", default: 1), 0), 8192))
            var fields = HTTPFields()
            fields[values: .setCookie] = (0..<count).map { "c\($0)=\(value); Path=/" }
            return try Reply.json(["set": count], headers: fields)
        }
    }
}

extension Request {
    /// Every query parameter called `name`, percent-decoded (`+` read as a space), in order.
    fileprivate func queryValues(_ name: String) -> [String] {
        guard let query = uri.query else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            guard decode(parts[0]) == name else { return nil }
            return parts.count > 1 ? decode(parts[1]) : ""
        }
    }
}
