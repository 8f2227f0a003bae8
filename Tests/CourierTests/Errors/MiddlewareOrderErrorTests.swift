import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Which middleware lists share one user's responses with another, whatever the placement of
/// the credentials: a cache or coalescer with any per-user credentials layer below it.
@Suite("MiddlewareOrderError: a sharing middleware above any per-user credentials layer")
struct MiddlewareOrderErrorTests {
    private static let provider = ClosureTokenProvider(token: { AccessToken("t1") }, refresh: { _ in AccessToken("t1") })
    private static let sid = [URLQueryItem(name: "sid", value: "S-1")]

    /// A list the client must refuse, and what the error names: the sharing middleware and the
    /// credentials layer below it, with their positions.
    struct Refused: Sendable, CustomTestStringConvertible {
        var name: String
        var middleware: [any Middleware]
        var sharing: (String, Int)
        var credentials: (String, Int)
        var testDescription: String { name }
    }

    static let refused: [Refused] = [
        Refused(name: "[Caching, BaseParameters(.query, .credentials)]",
                middleware: [CachingMiddleware(), BaseParametersMiddleware(sid, placement: .query, for: .credentials)],
                sharing: ("CachingMiddleware", 0), credentials: ("BaseParametersMiddleware", 1)),
        Refused(name: "[Coalescing, BaseParameters(.body, .credentials)]",
                middleware: [CoalescingMiddleware(), BaseParametersMiddleware(placement: .body, for: .credentials) { MiddlewareOrderErrorTests.sid }],
                sharing: ("CoalescingMiddleware", 0), credentials: ("BaseParametersMiddleware", 1)),
        Refused(name: "[BaseParameters(.headers, .credentials), Caching, Authentication(.bearer)]",
                middleware: [BaseParametersMiddleware([URLQueryItem(name: "pub_uid", value: "U-1")], placement: .headers, for: .credentials),
                             CachingMiddleware(), AuthenticationMiddleware(.bearer(provider))],
                sharing: ("CachingMiddleware", 1), credentials: ("AuthenticationMiddleware", 2)),
        Refused(name: "[Authentication(.bearer), Coalescing, Retry, BaseParameters(.query, .credentials)]",
                middleware: [AuthenticationMiddleware(.bearer(provider)), CoalescingMiddleware(), RetryMiddleware(),
                             BaseParametersMiddleware(sid, placement: .query, for: .credentials)],
                sharing: ("CoalescingMiddleware", 1), credentials: ("BaseParametersMiddleware", 3)),
    ]

    @Test("a cache or coalescer with a per-user credentials layer below it fails every request, naming both, and sends nothing",
          arguments: MiddlewareOrderErrorTests.refused)
    func refusesSharingAboveCredentials(_ refusal: Refused) async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        let client = MiddlewareFixtures.client(stub, refusal.middleware)
        let error = await #expect(throws: APIError.self) { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
        let order = try #require(error?.underlyingError as? MiddlewareOrderError)
        #expect(order.middleware == refusal.sharing.0)
        #expect(order.position == refusal.sharing.1)
        #expect(order.credentialsMiddleware == refusal.credentials.0)
        #expect(order.credentialsPosition == refusal.credentials.1)
        #expect(order.description.contains("put it after \(refusal.credentials.0)"))
        #expect(stub.requests.isEmpty)
    }

    @Test("credentials layers above every sharing middleware, in any placement, are accepted")
    func acceptsCredentialsAbove() async throws {
        let stub = StubTransport()
        stub.on(nil, "/**", .text("ok"))
        for middleware in [
            [BaseParametersMiddleware(Self.sid, placement: .query, for: .credentials), CachingMiddleware()] as [any Middleware],
            [BaseParametersMiddleware(placement: .body, for: .credentials) { Self.sid }, CoalescingMiddleware(), CachingMiddleware()],
            [AuthenticationMiddleware(.bearer(Self.provider)), BaseParametersMiddleware(Self.sid, placement: .query, for: .credentials),
             CoalescingMiddleware(), CachingMiddleware()],
            // Device fields are no user's: below the cache they split nothing between users.
            [CachingMiddleware(), BaseParametersMiddleware([URLQueryItem(name: "os", value: "iOS")], placement: .query)],
        ] {
            let client = MiddlewareFixtures.client(stub, middleware)
            #expect(try await client.send(MiddlewareFixtures.text(.get, "/me")) == "ok")
        }
        #expect(stub.requests.count == 4)
    }
}
