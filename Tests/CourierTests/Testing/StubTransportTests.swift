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

    @Test("a stubbed URLError fails as URLSession's does: a network error, retried", arguments: [
        URLError.Code.notConnectedToInternet, .cannotFindHost, .timedOut, .networkConnectionLost,
    ])
    func urlErrorIsANetworkFailure(_ code: URLError.Code) async throws {
        let stub = StubTransport()
        stub.on(.get, "/u", .failure(URLError(code)))
        let retry = RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(1), jitter: .none), budget: .unlimited)
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub, middleware: [retry])
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Empty>(path: "/u")) }
        #expect(error?.kind == (code == .timedOut ? .timeout : .network), "\(code)")
        #expect(stub.requests.count == 2, "\(code)")
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
