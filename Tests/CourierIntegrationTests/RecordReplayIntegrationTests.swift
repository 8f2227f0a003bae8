import Courier
import CourierTestServer
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Recording real exchanges with the loopback server, then replaying them with the server gone.
@Suite("Record and replay over real transports")
struct RecordReplayIntegrationTests {
    @Test("exchanges recorded from a real server replay offline, secrets redacted", arguments: TransportKind.allCases)
    func recordAndReplay(_ kind: TransportKind) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-it-cassette-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let request = Request<Echo>(path: "/echo", query: [.init(name: "access_token", value: "TOP-SECRET")])
            .header("Authorization", "Bearer TOP-SECRET")
        var baseURL: URL!
        let recordedEcho = try await withTestServer { (server: TestServer) async throws -> Echo in
            baseURL = server.baseURL
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL),
                                   transport: RecordingTransport(kind.makeTransport(), file: file))
            return try await client.send(request)
        }
        #expect(recordedEcho.headers["authorization"] == "Bearer TOP-SECRET")   // the server really got it
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("Bearer TOP-SECRET"))
        #expect(text.contains("access_token=<redacted>"))

        // The server is stopped: only the cassette can answer.
        let replaying = APIClient(configuration: APIConfiguration(baseURL: baseURL), transport: try ReplayTransport(file: file))
        let replayed = try await replaying.send(request)
        #expect(replayed.path == "/echo")
        #expect(replayed.method == "GET")
        await #expect(throws: APIError.self) { try await replaying.send(Request<Echo>(path: "/echo/other")) }
    }
}
