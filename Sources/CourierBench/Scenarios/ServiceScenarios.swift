import Courier
import CourierMacros
import Foundation

/// The benchmark's API declared the way applications declare theirs: `@Service` generates
/// `BenchUsersAPIService`, a client over `APIClient`.
@Service
protocol BenchUsersAPI {
    /// The server's ten users.
    @GET("/users")
    func all() async throws -> [BenchUser]
}

/// Courier over AsyncHTTPClient through a `@Service` macro client.
///
/// The generated method builds its `EndpointDescriptor`, turns it into a request and calls
/// `APIClient.send` on the same client as `ahc.courier`, so the difference between the two
/// scenarios is what the macro's generated code costs.
enum ServiceScenarios {
    /// `ahc.service`, over the client of `ahc.courier`.
    static func scenarios(ahc: AHCScenarios) -> [Scenario] {
        let api = BenchUsersAPIService(client: ahc.client)
        return [
            Scenario(key: "ahc.service", label: "Courier @Service client over AsyncHTTPClient", family: "ahc") {
                try await api.all().check()
            },
        ]
    }
}
