import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import CourierURLSession
import Foundation

/// The transports every integration test runs against.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case asyncHTTPClient

    var testDescription: String { rawValue }

    func makeTransport() -> any Transport {
        switch self {
        case .urlSession: return URLSessionTransport()
        case .asyncHTTPClient: return AsyncHTTPClientTransport()
        }
    }

    /// A client for `server` over this transport.
    func client(for server: TestServer, configure: (inout APIConfiguration) -> Void = { _ in }) -> APIClient {
        var configuration = APIConfiguration(baseURL: server.baseURL)
        configure(&configuration)
        return APIClient(configuration: configuration, transport: makeTransport())
    }
}

import Testing

/// What the loopback server's echo routes answer.
struct Echo: Decodable, Sendable {
    var method: String
    var target: String
    var path: String
    var query: String?
    var headers: [String: String]
    var body: String
    var bodyBase64: String
}

struct TestUser: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var email: String
}
