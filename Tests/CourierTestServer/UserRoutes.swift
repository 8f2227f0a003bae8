import Foundation
import Hummingbird

/// A user as `/users/{id}` returns it.
struct TestUser: Codable, Sendable {
    /// The numeric id from the path.
    let id: Int
    /// `"User <id>"`.
    let name: String
    /// `"user<id>@example.com"`.
    let email: String
}

/// `GET /users/{id}` and `POST /users`.
enum UserRoutes {
    /// Adds the user routes to `router`.
    static func add(to router: TestServerRouter) {
        router.get("/users/{id}") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard !id.isEmpty, id.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(id), number != 404 else {
                return try Reply.error(.notFound, code: "not_found", message: "No user with id \(id)")
            }
            return try Reply.json(TestUser(id: number, name: "User \(number)", email: "user\(number)@example.com"))
        }

        router.post("/users") { request, _ in
            var request = request
            let buffer = try await request.collectBody(upTo: EchoRoutes.maxBodySize)
            let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView))
            guard var user = object as? [String: Any] else {
                return try Reply.error(.badRequest, code: "bad_request", message: "The body must be a JSON object")
            }
            user["id"] = 101
            let data = try JSONSerialization.data(withJSONObject: user, options: [.sortedKeys, .withoutEscapingSlashes])
            return Reply.raw(data, status: .created, contentType: "application/json")
        }
    }
}
