import Foundation

/// A user of the demo API.
///
/// The JSON keys are snake_case through explicit `CodingKeys` (`avatar_url`), so decode it
/// with a plain `JSONDecoder` (no `.convertFromSnakeCase`, which would turn the key into
/// `avatarUrl` before it is matched and miss it).
struct User: Codable, Sendable, Equatable {
    /// Server-assigned id (1...23 are seeded; created users get 24, 25, ...).
    let id: Int
    /// Full name.
    var name: String
    /// Email address.
    var email: String
    /// Avatar image URL, if the user has one. JSON key `avatar_url`.
    var avatarURL: String?

    private enum CodingKeys: String, CodingKey {
        case id, name, email
        case avatarURL = "avatar_url"
    }
}

/// One page of a paginated list. JSON keys `page`, `results`, `total_pages`, `total_results`.
struct Page<T: Codable & Sendable>: Codable, Sendable {
    /// The 1-based page number.
    let page: Int
    /// The items on this page.
    let results: [T]
    /// How many pages there are at this page size (0 when nothing matched).
    let totalPages: Int
    /// How many items matched, over all pages.
    let totalResults: Int

    private enum CodingKeys: String, CodingKey {
        case page, results
        case totalPages = "total_pages"
        case totalResults = "total_results"
    }
}

/// The body of every demo API error: `{"error": "not_found", "message": "..."}`.
struct DemoErrorBody: Codable, Sendable {
    /// A stable machine-readable code: `unauthorized`, `not_found`, `bad_request`, ...
    let error: String
    /// A human-readable explanation.
    let message: String
}

/// The body of `POST /v1/users`: `{"name": ..., "email": ...}`.
struct DemoNewUser: Codable, Sendable {
    /// Full name; must not be empty.
    let name: String
    /// Email address.
    let email: String
}

/// The answer to an avatar upload: `{"bytes": n, "filename": ..., "content_type": ...}`.
struct DemoAvatarReceipt: Codable, Sendable {
    /// Size of the uploaded file in bytes.
    let bytes: Int
    /// The part's `filename`, if it had one.
    let filename: String?
    /// The part's `Content-Type`, if it had one.
    let contentType: String?

    private enum CodingKeys: String, CodingKey {
        case bytes, filename
        case contentType = "content_type"
    }
}

/// The demo server's in-memory user table, seeded with 23 users.
///
/// `@unchecked Sendable` is safe: `users` is private and every method reads or writes it only
/// while holding `lock`.
final class DemoUserStore: @unchecked Sendable {  // safe: every access to `users` holds `lock`
    private let lock = NSLock()
    private var users: [User]

    /// Creates a store holding the 23 seeded users.
    init() {
        users = Self.seedNames.enumerated().map { index, name in
            let id = index + 1
            let handle = name.lowercased().replacingOccurrences(of: " ", with: ".")
            return User(
                id: id,
                name: name,
                email: "\(handle)@example.com",
                avatarURL: id % 3 == 0 ? nil : "https://avatars.example.com/\(id).png"
            )
        }
    }

    /// One page of the users whose name contains `query` (case-insensitive; all when nil or empty).
    func page(_ page: Int, perPage: Int, matching query: String?) -> Page<User> {
        let matches = locked {
            users.filter { user in
                guard let query, !query.isEmpty else { return true }
                return user.name.range(of: query, options: .caseInsensitive) != nil
            }
        }
        let totalPages = (matches.count + perPage - 1) / perPage
        let start = (page - 1) * perPage
        let results = start < matches.count ? Array(matches[start..<min(start + perPage, matches.count)]) : []
        return Page(page: page, results: results, totalPages: totalPages, totalResults: matches.count)
    }

    /// The user with `id`, if any.
    func user(id: Int) -> User? {
        locked { users.first { $0.id == id } }
    }

    /// Adds a user with the next free id and returns it.
    func create(name: String, email: String) -> User {
        locked {
            let user = User(id: (users.map(\.id).max() ?? 0) + 1, name: name, email: email, avatarURL: nil)
            users.append(user)
            return user
        }
    }

    /// The user with the highest id (the last one created).
    func newestUser() -> User? {
        locked { users.max { $0.id < $1.id } }
    }

    /// Points the user's `avatar_url` at an uploaded file; false when there is no such user.
    @discardableResult
    func setAvatar(id: Int, filename: String) -> Bool {
        locked {
            guard let index = users.firstIndex(where: { $0.id == id }) else { return false }
            users[index].avatarURL = "https://avatars.example.com/\(id)/\(filename)"
            return true
        }
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// The 23 seeded users' names, ids 1...23 in this order.
    static let seedNames = [
        "Ada Lovelace", "Alan Turing", "Grace Hopper", "Linus Torvalds", "Margaret Hamilton",
        "Dennis Ritchie", "Barbara Liskov", "Ken Thompson", "Frances Allen", "Donald Knuth",
        "Radia Perlman", "Tim Berners-Lee", "Katherine Johnson", "Edsger Dijkstra", "Hedy Lamarr",
        "John McCarthy", "Sophie Wilson", "Bjarne Stroustrup", "Adele Goldberg", "Guido van Rossum",
        "Anita Borg", "Chris Lattner", "Jean Sammet",
    ]
}
