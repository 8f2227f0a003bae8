import Courier
import Foundation
import HTTPTypes

/// The typed request every Courier scenario sends: `GET /users`, decoded as `[BenchUser]` by
/// Courier's default `Decodable` decoding.
struct ListUsers: APIRequest {
    typealias Response = [BenchUser]
    /// `/users`.
    var path: RequestPath { RequestPath(verbatim: Fixtures.usersPath) }
}

/// The large body as bytes, through Courier (`Data` responses are returned as they arrived).
struct LargeBody: APIRequest {
    typealias Response = Data
    /// `/large`.
    var path: RequestPath { RequestPath(verbatim: Fixtures.largePath) }
}

/// One user sent as JSON to `POST /upload`, which answers with the number of bytes it read.
struct PostUser: APIRequest {
    typealias Response = Data
    /// The user sent.
    let user: BenchUser
    /// `POST`.
    var method: HTTPRequest.Method { .post }
    /// `/upload`.
    var path: RequestPath { RequestPath(verbatim: Fixtures.uploadPath) }
    /// The user, as JSON.
    var body: RequestBody { .json(user) }
}

extension PostUser {
    /// The user both sides of a `POST` pair send.
    static let sample = BenchUser(id: 1, name: "User Number 1", email: "user1@example.com", active: true, roles: ["admin"])
    /// What `POST /upload` answers to `sample` as JSON from a `JSONEncoder`: its length in bytes.
    static let expectedAnswer = Data(String(try! JSONEncoder().encode(sample).count).utf8)
}

/// An answer that is not what the server sends.
struct UnexpectedAnswer: Error, CustomStringConvertible {
    /// What was received instead.
    let description: String
}

extension Array where Element == BenchUser {
    /// Throws unless these are the server's 10 users, so no scenario can skip the work.
    func check() throws {
        guard count == 10, first?.id == 1 else { throw UnexpectedAnswer(description: "expected 10 users, got \(count)") }
    }
}
