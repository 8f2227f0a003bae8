import Courier
import Foundation

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
