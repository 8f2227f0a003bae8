import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("ManualClock")
struct ManualClockTests {
    @Test("a wait is recorded and returns at once, without moving the time")
    func waitsAreRecorded() async throws {
        let clock = ManualClock()
        let start = clock.now()
        let began = ContinuousClock.now
        try await clock.sleep(for: .seconds(600))
        try await clock.sleep(for: .milliseconds(250))
        #expect(clock.sleeps == [.seconds(600), .milliseconds(250)])
        #expect(clock.now() == start)
        #expect(began.duration(to: .now) < .seconds(60))   // a hang guard, not a timing claim
    }

    @Test("time moves only when the test moves it, by a Duration or by seconds, or is set")
    func advancing() {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_000))
        clock.advance(by: .seconds(90))
        #expect(clock.now() == Date(timeIntervalSince1970: 1_090))
        clock.advance(by: .milliseconds(500))
        #expect(clock.now() == Date(timeIntervalSince1970: 1_090.5))
        clock.advance(by: -0.5)
        #expect(clock.now() == Date(timeIntervalSince1970: 1_090))
        clock.set(to: Date(timeIntervalSince1970: 5))
        #expect(clock.now() == Date(timeIntervalSince1970: 5))
    }

    @Test("a cancelled task's wait throws CancellationError, as a real wait would")
    func cancelledWait() async {
        let clock = ManualClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("the guide's example: a retry after a 503's Retry-After waits on the clock, not in real time")
    func retryWaitsOnTheClock() async throws {
        let clock = ManualClock()
        let stub = StubTransport()
        stub.on(.get, "/users/42", StubResponse.status(503).header(.retryAfter, "2"))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub,
                               middleware: [RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, jitter: .none), clock: clock)])
        _ = try? await client.send(Request<Data>(path: "/users/42"))
        #expect(clock.sleeps == [.seconds(2)])
        #expect(stub.requests.count == 2)
    }
}
