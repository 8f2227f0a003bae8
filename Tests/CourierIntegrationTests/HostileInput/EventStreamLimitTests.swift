import Courier
import CourierTestServer
import Foundation
import Testing

/// A line or an event longer than the limit ends the stream with a clear error; nothing grows
/// without bound.
@Suite("Server-Sent Events are bounded")
struct EventStreamLimitTests {
    @Test("a 2 MiB line that never ends is refused under a 1 MiB limit", arguments: TransportKind.allCases)
    func endlessLine(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) {
                $0.maxResponseSize = 1024 * 1024
                $0.timeout = .seconds(30)
            }
            let events = try await client.events(for: Request<Void>(path: "/events/endless-line", query: [.init(name: "kb", value: "2048")]))
            var delivered = 0
            await #expect {
                for try await _ in events { delivered += 1 }
            } throws: { error in
                guard let apiError = error as? APIError, apiError.kind == .resourceTooLarge, let limit = apiError.sizeLimit else { return false }
                return limit == 1024 * 1024
            }
            #expect(delivered == 0)
        }
    }

    @Test("events under the limit arrive as before", arguments: TransportKind.allCases)
    func normalEvents(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.maxResponseSize = 64 }
            var data: [String] = []
            for try await event in try await client.events(for: Request<Void>(path: "/events")) { data.append(event.data ?? "") }
            #expect(data == ["hello", #"{"count": 2}"#, "bye"])
        }
    }
}
