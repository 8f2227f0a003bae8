import Foundation
import Hummingbird

/// The demo API's routes. Everything under `/v1` needs `X-API-Key: demo-key`.
///
/// - `GET /v1/users?page=1&per_page=10&q=` → `Page<User>` (`q` filters names, case-insensitive)
/// - `GET /v1/users/{id}` → `User`, or 404
/// - `POST /v1/users` with `{"name", "email"}` → 201 `User`, or 422 when the name is empty
/// - `PUT` or `POST /v1/users/{id}/avatar` with `multipart/form-data` (part `avatar`)
///   → `{"bytes", "filename", "content_type"}`
/// - `GET /v1/events` → `text/event-stream`: `user.created` (the newest user), `user.updated`,
///   `user.deleted`, each with a `User` as JSON data, 20 ms apart; then the stream closes
/// - `GET /v1/countries`, `GET /v1/settings`, `GET /v1/cache-stats`: cacheable answers and
///   their request counts (``DemoCacheRoutes``)
enum DemoRoutes {
    /// The API key every `/v1` request must send in `X-API-Key`.
    static let apiKey = "demo-key"
    /// The largest request body accepted (10 MiB).
    static let maxBodySize = 10 * 1024 * 1024

    /// Builds the router for a fresh ``DemoUserStore``.
    static func makeRouter(store: DemoUserStore) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let v1 = router.group("v1").add(middleware: DemoAPIKeyMiddleware())

        v1.get("users") { request, _ in
            let page = queryValue("page", in: request).flatMap { Int($0) } ?? 1
            let perPage = queryValue("per_page", in: request).flatMap { Int($0) } ?? 10
            guard page >= 1, (1...100).contains(perPage) else {
                return try json(DemoErrorBody(error: "bad_request", message: "page must be >= 1 and per_page 1...100"), status: .badRequest)
            }
            return try json(store.page(page, perPage: perPage, matching: queryValue("q", in: request)))
        }

        v1.get("users/{id}") { _, context in
            guard let id = context.parameters.get("id", as: Int.self), let user = store.user(id: id) else {
                return try notFound(context.parameters.get("id") ?? "")
            }
            return try json(user)
        }

        v1.post("users") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: maxBodySize)
            guard let new = try? JSONDecoder().decode(DemoNewUser.self, from: Data(body.readableBytesView)) else {
                return try json(DemoErrorBody(error: "bad_request", message: "expected JSON {\"name\", \"email\"}"), status: .badRequest)
            }
            let name = new.name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty else {
                return try json(DemoErrorBody(error: "validation_failed", message: "name must not be empty"), status: .unprocessableContent)
            }
            return try json(store.create(name: name, email: new.email), status: .created)
        }

        let upload: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            guard let id = context.parameters.get("id", as: Int.self), store.user(id: id) != nil else {
                return try notFound(context.parameters.get("id") ?? "")
            }
            guard let boundary = DemoMultipart.boundary(fromContentType: request.headers[.contentType] ?? "") else {
                return try json(DemoErrorBody(error: "unsupported_media_type", message: "expected multipart/form-data with a boundary"), status: .unsupportedMediaType)
            }
            var request = request
            let body = Array(try await request.collectBody(upTo: maxBodySize).readableBytesView)
            guard let part = DemoMultipart.parts(of: body, boundary: boundary).first(where: { $0.name == "avatar" }) else {
                return try json(DemoErrorBody(error: "validation_failed", message: "no form part named \"avatar\""), status: .unprocessableContent)
            }
            store.setAvatar(id: id, filename: part.filename ?? "avatar")
            return try json(DemoAvatarReceipt(bytes: part.body.count, filename: part.filename, contentType: part.contentType))
        }
        v1.put("users/{id}/avatar", use: upload)
        v1.post("users/{id}/avatar", use: upload)

        v1.get("events") { _, _ in
            let newest = store.newestUser() ?? User(id: 24, name: "Mary Jackson", email: "mary.jackson@example.com")
            let events = [
                (1, "user.created", newest),
                (2, "user.updated", User(id: 2, name: "Alan M. Turing", email: "alan.turing@example.com")),
                (3, "user.deleted", User(id: 7, name: "Barbara Liskov", email: "barbara.liskov@example.com")),
            ]
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let chunks = try events.map { id, name, user in
                "id: \(id)\nevent: \(name)\ndata: \(String(decoding: try encoder.encode(user), as: UTF8.self))\n\n"
            }
            let body = ResponseBody { writer in
                for chunk in chunks {
                    try await writer.write(ByteBuffer(string: chunk))
                    try await Task.sleep(for: .milliseconds(20))
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
        DemoCacheRoutes.add(to: v1)
        DemoDownloadRoutes.add(to: v1)
        return router
    }

    /// A JSON response with `Content-Type: application/json`.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// 404 with `{"error": "not_found", "message": "No user with id <id>"}`.
    static func notFound(_ id: String) throws -> Response {
        try json(DemoErrorBody(error: "not_found", message: "No user with id \(id)"), status: .notFound)
    }

    /// The first query parameter `name`, percent-decoded with `+` read as a space.
    static func queryValue(_ name: String, in request: Request) -> String? {
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            if decode(parts[0]) == name { return parts.count > 1 ? decode(parts[1]) : "" }
        }
        return nil
    }
}

/// Rejects `/v1` requests without `X-API-Key: demo-key` with 401 and a JSON error.
struct DemoAPIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.init("X-API-Key")!] == DemoRoutes.apiKey else {
            var response = try DemoRoutes.json(DemoErrorBody(error: "unauthorized", message: "missing or wrong X-API-Key"), status: .unauthorized)
            response.headers[.wwwAuthenticate] = "ApiKey header=\"X-API-Key\""
            return response
        }
        return try await next(request, context)
    }
}

/// A minimal `multipart/form-data` (RFC 7578) reader for the avatar upload.
enum DemoMultipart {
    /// One form part.
    struct Part {
        /// The `name` parameter of `Content-Disposition`.
        var name: String?
        /// The `filename` parameter of `Content-Disposition`.
        var filename: String?
        /// The part's `Content-Type`.
        var contentType: String?
        /// The part's content.
        var body: ArraySlice<UInt8>
    }

    /// The `boundary` parameter of a `multipart/form-data` content type, unquoted.
    static func boundary(fromContentType contentType: String) -> String? {
        let params = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard params.first?.lowercased() == "multipart/form-data" else { return nil }
        return parameter("boundary", in: params.dropFirst())
    }

    /// The parts of `body`, split on `--boundary` delimiters.
    static func parts(of body: [UInt8], boundary: String) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n\r\n".utf8)
        var result: [Part] = []
        guard var start = find(delimiter, in: body, from: 0) else { return [] }
        while true {
            let headerStart = start + delimiter.count + 2  // skip CRLF (or "--" at the end)
            guard headerStart <= body.count, body[start + delimiter.count] != UInt8(ascii: "-"),
                  let headerEnd = find(separator, in: body, from: headerStart),
                  let next = find(Array("\r\n--\(boundary)".utf8), in: body, from: headerEnd)
            else { break }
            var part = Part(body: body[(headerEnd + 4)..<next])
            for line in String(decoding: body[headerStart..<headerEnd], as: UTF8.self).components(separatedBy: "\r\n") {
                let field = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard field.count == 2 else { continue }
                switch field[0].lowercased() {
                case "content-type": part.contentType = field[1]
                case "content-disposition":
                    let params = field[1].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                    part.name = parameter("name", in: params.dropFirst())
                    part.filename = parameter("filename", in: params.dropFirst())
                default: break
                }
            }
            result.append(part)
            start = next + 2
        }
        return result
    }

    private static func parameter(_ name: String, in params: ArraySlice<String>) -> String? {
        for param in params {
            let pair = param.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            let value = pair[1]
            return value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
        }
        return nil
    }
}
