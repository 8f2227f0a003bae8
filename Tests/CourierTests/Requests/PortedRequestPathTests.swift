import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Paths written the way other clients' documents write them: interpolated values are encoded
/// as one segment each, and a path that would climb is refused.
extension PortedRequestTests {
    struct GetUser: APIRequest {
        typealias Response = Data
        let id: String
        var path: RequestPath { "/users/\(id)/profile" }
    }

    @Test("a value interpolated into a path is one segment: it cannot climb or reach the query",
          arguments: [
              ("../admin?x=1", "/v2/users/..%2Fadmin%3Fx%3D1/profile"),
              ("7#frag", "/v2/users/7%23frag/profile"),
              ("a b/c", "/v2/users/a%20b%2Fc/profile"),
              ("42", "/v2/users/42/profile"),
          ])
    func interpolatedValuesAreEncoded(id: String, target: String) async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        _ = try await client.send(GetUser(id: id))
        #expect(stub.requests.first?.target == target)
    }

    @Test("an interpolated value that is empty, '.' or '..' fails the request before it is sent",
          arguments: ["", ".", ".."])
    func dotValuesAreRefused(id: String) async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        await #expect {
            try await client.send(GetUser(id: id))
        } throws: { error in
            (error as? APIError)?.kind == .encodingFailed && (error as? APIError)?.underlyingError is PathEncodingError
        }
        #expect(stub.requests.isEmpty)
    }

    @Test("\\(raw:) splices text as written; literal parts keep their query")
    func rawAndLiteralParts() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        let prefix = "files/reports"
        _ = try await client.send(Request<Data>(path: "/\(raw: prefix)/\("q3 2026.pdf")?download=1"))
        #expect(stub.requests.first?.target == "/v2/files/reports/q3%202026.pdf?download=1")
    }

    @Test("a path with a '..' segment is refused, whoever built it", arguments: [
        "/users/../admin", "/users/%2e%2E/admin", "https://api.example.com/v2/a/./b",
    ])
    func dotSegmentsAreRefused(path: String) async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        await #expect {
            try await client.send(Request<Data>(path: path))
        } throws: { error in
            (error as? APIError)?.kind == .encodingFailed
        }
        #expect(stub.requests.isEmpty)
    }
}
