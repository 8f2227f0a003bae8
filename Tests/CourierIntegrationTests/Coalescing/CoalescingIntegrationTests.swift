import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

@Suite("Coalescing identical requests against a real server")
struct CoalescingIntegrationTests {
    struct Slow: Decodable, Sendable { var ok: Bool }

    @Test("eight identical GETs in flight reach the server once; each caller gets its value", arguments: TransportKind.allCases)
    func oneExchangeForIdenticalRequests(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let coalescing = CoalescingMiddleware()
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport(),
                                   middleware: [coalescing])
            let before = server.requestCount
            // The server holds the response long enough for every caller to join; the count
            // below is what the test checks, not the time.
            let values = try await withThrowingTaskGroup(of: Slow.self) { group in
                for _ in 0..<8 { group.addTask { try await client.send(Request<Slow>(path: "/slow", query: [.init(name: "ms", value: "800")])) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(values.count == 8 && values.allSatisfy(\.ok))
            #expect(server.requestCount - before == 8 - coalescing.joinedCount)
            #expect(coalescing.joinedCount >= 1)
            // Different queries are different requests.
            async let a = client.send(Request<Slow>(path: "/slow", query: [.init(name: "ms", value: "1")]))
            async let b = client.send(Request<Slow>(path: "/slow", query: [.init(name: "ms", value: "2")]))
            _ = try await (a, b)
            #expect(server.requestCount - before == 10 - coalescing.joinedCount)
        }
    }
}
