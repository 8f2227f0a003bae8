import Courier
import CourierTesting
import Foundation
import HTTPTypes

/// Models and helpers shared by the core's unit tests.
struct User: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

struct NewUser: Codable, Sendable {
    var name: String
}

/// A client over a fresh stub transport, with the base URL the tests use.
func makeClient(
    baseURL: String = "https://api.example.com/v2",
    configure: (inout APIConfiguration) -> Void = { _ in }
) -> (APIClient, StubTransport) {
    let stub = StubTransport()
    var configuration = APIConfiguration(baseURL: URL(string: baseURL)!)
    configure(&configuration)
    return (APIClient(configuration: configuration, transport: stub), stub)
}
