import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Stub transport")
struct StubTransportTests {
    private func client(_ stub: StubTransport) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub)
    }

    @Test("a caller's cancellation that reaches the stub is recorded; answered requests are not")
    func cancelledRequests() async throws {
        let stub = StubTransport()
        stub.on(.get, "/slow", StubResponse.status(200).delayed(by: .seconds(600)))
        stub.on(.get, "/fast", .status(204))
        let client = client(stub)
        _ = try await client.send(Request<Empty>(path: "/fast"))

        let slow = Task { try await client.send(Request<Empty>(path: "/slow")) }
        let clock = ContinuousClock()
        let start = clock.now
        while stub.requests.count < 2, clock.now - start < .seconds(60) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(stub.cancelledRequests.isEmpty)
        slow.cancel()
        // The 600 s delay ends at once: the stub sees the cancellation while it waits.
        await #expect(throws: CancellationError.self) { try await slow.value }
        #expect(stub.cancelledRequests.map(\.path) == ["/slow"])
        #expect(stub.requests.map(\.path) == ["/fast", "/slow"])

        stub.reset()
        #expect(stub.cancelledRequests.isEmpty)
    }

    @Test("a handler that throws CancellationError while nobody cancelled the task is not recorded")
    func handlerCancellation() async throws {
        let stub = StubTransport()
        stub.on(.get, "/gone") { _ in throw CancellationError() }
        await #expect(throws: (any Error).self) { try await client(stub).send(Request<Empty>(path: "/gone")) }
        #expect(stub.cancelledRequests.isEmpty)
        #expect(stub.requests.map(\.path) == ["/gone"])
    }
}
