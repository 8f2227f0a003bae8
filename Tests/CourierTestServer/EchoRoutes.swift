import Foundation
import Hummingbird

/// What `/echo`, `/echo/**` and `/headers` send back: the request as the server saw it.
struct EchoPayload: Encodable {
    /// The request method, e.g. `"GET"`.
    let method: String
    /// The raw request target exactly as received (path + `?` + query, not decoded).
    let target: String
    /// The raw path, not decoded.
    let path: String
    /// The raw query, not decoded; encoded as JSON `null` when there is none.
    let query: String?
    /// Header fields with lowercased names; repeated names joined with `", "`.
    /// The `Host` header (an `:authority` in HTTPTypes) is included as `host`.
    let headers: [String: String]
    /// The body as UTF-8 text, or as base64 when it is not valid UTF-8.
    let body: String
    /// The body as base64.
    let bodyBase64: String

    private enum CodingKeys: String, CodingKey {
        case method, target, path, query, headers, body, bodyBase64
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(target, forKey: .target)
        try container.encode(path, forKey: .path)
        try container.encode(query, forKey: .query)  // explicit null when absent
        try container.encode(headers, forKey: .headers)
        try container.encode(body, forKey: .body)
        try container.encode(bodyBase64, forKey: .bodyBase64)
    }
}

/// The echo routes: `/echo` (GET, POST, PUT, PATCH, DELETE), `/echo/**` and `/headers`
/// (any method).
enum EchoRoutes {
    /// The largest request body the echo routes read (64 MiB).
    static let maxBodySize = 64 * 1024 * 1024

    /// Adds the echo routes to `router`.
    static func add(to router: TestServerRouter) {
        for method: HTTPRequest.Method in [.get, .post, .put, .patch, .delete] {
            router.on("/echo", method: method) { request, _ in try await echo(request) }
        }
        router.onAnyMethod("/echo/**") { request, _ in try await echo(request) }
        router.onAnyMethod("/headers") { request, _ in try await echo(request) }
    }

    /// Answers 200 with an ``EchoPayload`` describing `request` (headers only for HEAD).
    static func echo(_ request: Request) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: maxBodySize)
        let bytes = Array(buffer.readableBytesView)
        let base64 = Data(bytes).base64EncodedString()
        let text = String(decoding: bytes, as: UTF8.self)
        let payload = EchoPayload(
            method: request.method.rawValue,
            target: request.head.path ?? "",
            path: request.uri.path,
            query: request.uri.query,
            headers: headerDictionary(request.head),
            body: Array(text.utf8) == bytes ? text : base64,
            bodyBase64: base64
        )
        let response = try Reply.json(payload)
        return request.method == .head ? response.createHeadResponse() : response
    }

    /// Header fields keyed by lowercased name, repeated names joined with `", "`.
    static func headerDictionary(_ head: HTTPRequest) -> [String: String] {
        var result: [String: String] = [:]
        if let authority = head.authority {
            result["host"] = authority
        }
        for field in head.headerFields {
            let name = field.name.canonicalName
            if let existing = result[name] {
                result[name] = existing + ", " + field.value
            } else {
                result[name] = field.value
            }
        }
        return result
    }
}
