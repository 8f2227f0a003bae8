import Courier
import CourierTesting
import Foundation
import Testing

/// A request whose path is declared as `String` still compiles — with the deprecation warning
/// this file shows on purpose — and is sent as written.
@Suite("String paths stay source-compatible")
struct StringPathCompatibilityTests {
    struct LegacyListUsers: APIRequest {
        typealias Response = Data
        var path: String { "/v1/users?page=2" }
    }

    @Test("a String path is sent as written, its query kept")
    func stringPathIsSent() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        _ = try await client.send(LegacyListUsers())
        #expect(stub.requests.first?.target == "/v2/v1/users?page=2")
    }
}
