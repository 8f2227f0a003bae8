import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite struct RetryPolicyTests {
    private typealias F = MiddlewareFixtures

    @Test func backoffGrowsExponentiallyUpToTheCap() {
        let policy = RetryPolicy(initialDelay: .seconds(1), multiplier: 2, maxDelay: .seconds(5), jitter: .none)
        #expect((1...5).map { policy.backoff(beforeRetry: $0) } == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
    }

    @Test func fullJitterStaysBetweenZeroAndTheExponentialDelay() {
        let policy = RetryPolicy(initialDelay: .seconds(1), maxDelay: .seconds(30), jitter: .full)
        for _ in 0..<200 {
            let delay = policy.backoff(beforeRetry: 3)
            #expect(delay >= .zero && delay <= .seconds(4))
        }
    }

    @Test func parsesRetryAfterInSecondsAndAllThreeHTTPDateFormats() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)     // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(RetryPolicy.retryAfter("120", now: now) == .seconds(120))
        #expect(RetryPolicy.retryAfter(" \t120\t ", now: now) == .seconds(120))
        #expect(RetryPolicy.retryAfter(" \t ", now: now) == nil)
        #expect(RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:14:20 GMT", now: now) == .seconds(60))
        #expect(RetryPolicy.retryAfter("Tuesday, 14-Nov-23 22:14:20 GMT", now: now) == .seconds(60))
        #expect(RetryPolicy.retryAfter("Tue Nov 14 22:14:20 2023", now: now) == .seconds(60))
        #expect(RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now: now) == .zero)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(RetryPolicy.retryAfter("-5", now: now) == nil)
        #expect(RetryPolicy.retryAfter(nil, now: now) == nil)
    }

    @Test func budgetAllowsTheRatioOfRequestsPlusAReserveThatRefillsWithTime() {
        let clock = ManualClock()
        let budget = RetryBudget(retryRatio: 0.2, minRetriesPerSecond: 2, clock: clock)
        #expect(budget.tryWithdraw() && budget.tryWithdraw())      // the reserve
        #expect(!budget.tryWithdraw())
        for _ in 0..<10 { budget.recordRequest() }                  // 10 × 0.2 = 2 tokens
        #expect(budget.tryWithdraw() && budget.tryWithdraw())
        #expect(!budget.tryWithdraw())
        clock.advance(by: 0.5)                                     // half a second refills one
        #expect(budget.tryWithdraw())
        #expect(!budget.tryWithdraw())
    }

    @Test func aSharedBudgetLimitsRetriesAcrossConcurrentRequests() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items/{id}", .status(503))
        let budget = RetryBudget(retryRatio: 0.1, minRetriesPerSecond: 0)
        let retry = RetryMiddleware(policy: RetryPolicy(maxAttempts: 5, jitter: .none), budget: budget, clock: ManualClock())
        let client = F.client(stub, [retry])
        await withTaskGroup(of: Void.self) { group in
            for id in 0..<50 { group.addTask { _ = try? await client.send(F.text(.get, "/items/\(id)")) } }
        }
        // 50 first attempts deposit 5 tokens: at most 5 retries in all, however the tasks interleave.
        #expect(stub.requests.count <= 55)
        #expect(stub.requests.count >= 50)
    }

    @Test func aClockTimeSourceSleepsOnTheWrappedClock() async throws {
        let clock = ClockTimeSource(ContinuousClock())
        let start = ContinuousClock.now
        try await clock.sleep(for: .milliseconds(20))
        #expect(start.duration(to: .now) >= .milliseconds(20))
    }

    @Test func retriesAConnectionLostInTheMiddleOfASmallBody() async throws {
        let calls = Locked(0)
        let transport = MiddlewareTestTransport { _, _, _ in
            let call = calls.withLock { $0 += 1; return $0 }
            let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
            continuation.yield(ArraySlice(#"{"items":["#.utf8))
            if call == 1 {
                continuation.finish(throwing: TransportError(.connectionLost, "closed mid-body"))
            } else {
                continuation.yield(ArraySlice("1]}".utf8))
                continuation.finish()
            }
            var head = HTTPResponse(status: .ok)
            head.headerFields[.contentLength] = "13"
            return (head, HTTPBody(stream, length: .known(13), iterationBehavior: .single))
        }
        let client = F.client(transport, [RetryMiddleware(policy: RetryPolicy(jitter: .none), clock: ManualClock())])
        #expect(try await client.send(F.text(.get, "/items")) == #"{"items":[1]}"#)
        #expect(calls.current == 2)
    }

    @Test func leavesAnUnsizedBodyStreamingAndReportsItsFailure() async throws {
        let calls = Locked(0)
        let transport = MiddlewareTestTransport { _, _, _ in
            calls.withLock { $0 += 1 }
            let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
            continuation.yield(ArraySlice("data: 1\n\n".utf8))
            continuation.finish(throwing: TransportError(.connectionLost, "closed mid-body"))
            return (HTTPResponse(status: .ok), HTTPBody(stream, length: .unknown, iterationBehavior: .single))
        }
        let client = F.client(transport, [RetryMiddleware(policy: RetryPolicy(jitter: .none), clock: ManualClock())])
        await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/events")) }
        #expect(calls.current == 1)
    }

    @Test func aBodyLongerThanAnnouncedStreamsOnIntactPastTheBuffer() async throws {
        let transport = MiddlewareTestTransport { _, _, _ in
            let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
            for part in ["0123456789", "abcdefghij", "KLMNOPQRST"] { continuation.yield(ArraySlice(part.utf8)) }
            continuation.finish()
            return (HTTPResponse(status: .ok), HTTPBody(stream, length: .known(12), iterationBehavior: .single))
        }
        let client = F.client(transport, [RetryMiddleware(policy: RetryPolicy(jitter: .none), clock: ManualClock())])
        #expect(try await client.send(F.text(.get, "/x")) == "0123456789abcdefghijKLMNOPQRST")
    }

    @Test("an unlimited budget reports Int.max retries available, not an arithmetic trap")
    func unlimitedBudgetAvailable() {
        #expect(RetryBudget.unlimited.available == Int.max)
        #expect(RetryBudget(retryRatio: 0.1, minRetriesPerSecond: 1e300).available == Int.max)
    }
}
