import Courier
import Foundation

/// Courier over AsyncHTTPClient sending the value a `@Service` method builds.
///
/// A method `@GET("/users") func all() async throws -> [BenchUser]` of a `@Service` protocol
/// expands to an `EndpointDescriptor` that becomes exactly this `Request<[BenchUser]>` — the
/// operation name set, JSON decoded by a closure — and calls `APIClient.send`. The benchmark
/// target does not depend on the macro module (building the macro plugin in release means
/// building swift-syntax in release), so it sends that value directly: the same code path from
/// `APIClient.send` on, without the descriptor's few dictionary writes.
enum ServiceShapedScenarios {
    /// `ahc.request`, over the client of `ahc.courier`.
    static func scenarios(ahc: AHCScenarios) -> [Scenario] {
        let client = ahc.client
        let request = Request<[BenchUser]>(
            path: Fixtures.usersPath,
            options: RequestOptions(operationName: "Users.all()"),
            decode: { _, body, context in try context.decodeJSON([BenchUser].self, from: body) })
        return [
            Scenario(key: "ahc.request", label: "Courier Request<T> as @Service sends it (AHC)", family: "ahc") {
                try await client.send(request).check()
            },
        ]
    }
}
