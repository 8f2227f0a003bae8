import Foundation

/// One user in the benchmark's JSON payload: the model every client decodes.
struct BenchUser: Codable, Sendable, Equatable {
    /// 1 to 10.
    var id: Int
    /// `User Number <id>`.
    var name: String
    /// `user<id>@example.com`.
    var email: String
    /// Whether the account is active.
    var active: Bool
    /// One or two role names.
    var roles: [String]
}

/// The fixed payloads the loopback server answers with, and their paths.
enum Fixtures {
    /// The path of the ~1 KB JSON array of 10 users.
    static let usersPath = "/users"
    /// The path of the 1 MiB binary body.
    static let largePath = "/large"
    /// The path of a body generated at the size asked for (`?bytes=N`).
    static let generatedPath = "/generated"
    /// The path that reads a request body to its end and answers with its length.
    static let uploadPath = "/upload"
    /// `GET /bomb?bytes=N`: `N` zero bytes as zlib-wrapped deflate (`Content-Encoding: deflate`),
    /// about 1,000 times smaller on the wire (the transfer probes' decompression bomb).
    static let bombPath = "/bomb"
    /// The path of the users JSON, cacheable for a year, with an `ETag` (``CacheRoutes``).
    static let cachedUsersPath = "/cached/users"
    /// The path of a 64 KiB body a cache must revalidate on every request (`no-cache`, `ETag`).
    static let revalidatedPath = "/cached/revalidated"
    /// The prefix of the users JSON under distinct URLs (`/cached/items/N`), cacheable for a year.
    static let cachedItemsPath = "/cached/items"
    /// The size of the revalidated body: 64 KiB.
    static let revalidatedSize = 64 << 10
    /// The size of the large body: 1 MiB.
    static let largeSize = 1 << 20

    /// The 10 users the server sends.
    static let users: [BenchUser] = (1...10).map { id in
        BenchUser(id: id, name: "User Number \(id)", email: "user\(id)@example.com", active: id % 3 != 0,
                  roles: id % 2 == 0 ? ["reader", "writer"] : ["reader"])
    }

    /// The users as JSON (about 1 KB), encoded once.
    static let usersJSON: Data = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try! encoder.encode(users)  // a fixed, known-encodable value
    }()

    /// 1 MiB of bytes with a simple repeating pattern.
    static let largeBody: [UInt8] = (0..<largeSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    /// The first 64 KiB of the large body.
    static let revalidatedBody: [UInt8] = Array(largeBody.prefix(revalidatedSize))
}
