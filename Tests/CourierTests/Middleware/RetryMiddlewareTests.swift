import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite struct RetryMiddlewareTests {
    private typealias F = MiddlewareFixtures

    private func retry(_ policy: RetryPolicy = RetryPolicy(jitter: .none), clock: ManualClock,
                       budget: RetryBudget = .unlimited) -> RetryMiddleware {
        RetryMiddleware(policy: policy, budget: budget, clock: clock)
    }

    @Test func retriesA503ThenReturnsTheSuccessWithEachAttemptNumbered() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", [.status(503), .status(502), .text("ok")])
        let clock = ManualClock()
        let client = F.client(stub, [retry(clock: clock)])
        let text = try await client.send(F.text(.get, "/items"))
        #expect(text == "ok")
        #expect(stub.requests.map(\.attempt) == [1, 2, 3])
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
    }

    @Test func stopsAfterMaxAttemptsAndReturnsTheLastResponse() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", .status(500))
        let clock = ManualClock()
        let client = F.client(stub, [retry(RetryPolicy(maxAttempts: 2, jitter: .none), clock: clock)])
        await #expect { try await client.send(F.text(.get, "/items")) } throws: { ($0 as? APIError)?.statusCode == 500 }
        #expect(stub.requests.count == 2)
    }

    @Test func honoursRetryAfterInSecondsAndNeverWaitsLess() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", [StubResponse.status(503).header(.retryAfter, "7"), .text("ok")])
        let clock = ManualClock()
        let client = F.client(stub, [retry(clock: clock)])
        _ = try await client.send(F.text(.get, "/items"))
        #expect(clock.sleeps == [.seconds(7)])
    }

    @Test func honoursRetryAfterAsAnHTTPDate() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_700_000_000))   // Tue, 14 Nov 2023 22:13:20 GMT
        let stub = StubTransport()
        stub.on(.get, "/items", [StubResponse.status(503).header(.retryAfter, "Tue, 14 Nov 2023 22:14:00 GMT"), .text("ok")])
        let client = F.client(stub, [retry(RetryPolicy(maxDelay: .seconds(300), jitter: .none), clock: clock)], timeout: .seconds(600))
        _ = try await client.send(F.text(.get, "/items"))
        #expect(clock.sleeps == [.seconds(40)])
    }

    @Test func returnsTheResponseWhenRetryAfterExceedsTheCap() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", [StubResponse.status(503).header(.retryAfter, "120"), .text("ok")])
        let clock = ManualClock()
        let client = F.client(stub, [retry(RetryPolicy(maxDelay: .seconds(30)), clock: clock)])
        await #expect { try await client.send(F.text(.get, "/items")) } throws: { ($0 as? APIError)?.statusCode == 503 }
        #expect(stub.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func returnsTheResponseWhenRetryAfterExceedsTheDeadline() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", [StubResponse.status(503).header(.retryAfter, "10"), .text("ok")])
        let clock = ManualClock()
        let client = F.client(stub, [retry(clock: clock)], timeout: .seconds(5))
        await #expect { try await client.send(F.text(.get, "/items")) } throws: { ($0 as? APIError)?.statusCode == 503 }
        #expect(stub.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func doesNotRetryPost() async throws {
        let stub = StubTransport()
        stub.on(.post, "/items", [.status(503), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        await #expect(throws: APIError.self) { try await client.send(F.text(.post, "/items", body: .data(Data("x".utf8), contentType: "text/plain"))) }
        #expect(stub.requests.count == 1)
    }

    @Test func retriesPostWithAnIdempotencyKeyOrWhenTheRequestOptsIn() async throws {
        let stub = StubTransport()
        stub.on(.post, "/keyed", [.status(503), .text("ok")])
        stub.on(.post, "/opted", [.status(503), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        _ = try await client.send(F.text(.post, "/keyed", headers: [HTTPField.Name("Idempotency-Key")!: "abc"]))
        _ = try await client.send(F.text(.post, "/opted", options: RequestOptions(retry: .always)))
        #expect(stub.requests.count == 4)
        #expect(stub.requests(matching: "/v1/opted").last?.bodyText == "")
    }

    @Test func neverRetriesWhenTheRequestSaysNever() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", [.status(503), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/items", options: RequestOptions(retry: .never))) }
        #expect(stub.requests.count == 1)
    }

    @Test func neverRetriesABodyThatCanBeSentOnlyOnce() async throws {
        let stub = StubTransport()
        stub.on(.put, "/items", [.status(503), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        let request = F.text(.put, "/items", body: .stream(F.singlePassBody("payload")), options: RequestOptions(retry: .always))
        await #expect(throws: APIError.self) { try await client.send(request) }
        #expect(stub.requests.count == 1)
        #expect(stub.requests.first?.bodyText == "payload")
    }

    @Test func resendsAReplayableBodyIdentically() async throws {
        let stub = StubTransport()
        stub.on(.put, "/items", [.status(503), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        _ = try await client.send(F.text(.put, "/items", body: .json(["name": "Ada"])))
        #expect(stub.requests.map(\.bodyText) == [#"{"name":"Ada"}"#, #"{"name":"Ada"}"#])
    }

    @Test func retriesTransportFailuresOfIdempotentRequests() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", [.failure(TransportError(.connectionLost, "reset")), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        #expect(try await client.send(F.text(.get, "/items")) == "ok")
        #expect(stub.requests.count == 2)
    }

    @Test func retriesAPostOnlyWhenTheFailureProvesNothingWasSent() async throws {
        let stub = StubTransport()
        stub.on(.post, "/refused", [.failure(TransportError(.connectionFailed, "refused", requestMayHaveBeenSent: false)), .text("ok")])
        stub.on(.post, "/lost", [.failure(TransportError(.connectionLost, "reset")), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        #expect(try await client.send(F.text(.post, "/refused")) == "ok")
        await #expect(throws: APIError.self) { try await client.send(F.text(.post, "/lost")) }
        #expect(stub.requests(matching: "/v1/refused").count == 2)
        #expect(stub.requests(matching: "/v1/lost").count == 1)
    }

    @Test("a POST answered by a redirect whose next hop fails to connect is not sent again: the first server handled it")
    func doesNotResendAPostAfterItsRedirectFails() async throws {
        let stub = StubTransport()
        stub.on(.post, "/orders", StubResponse(status: 303, headers: [.location: "/v1/orders/1"]))
        stub.on(.get, "/orders/1", [.failure(TransportError(.connectionFailed, "refused", requestMayHaveBeenSent: false)), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        let error = await #expect(throws: APIError.self) { try await client.send(F.text(.post, "/orders", body: .data(Data("{}".utf8), contentType: "application/json"))) }
        #expect(error?.kind == .network, "\(String(describing: error))")
        #expect(stub.requests(matching: "/v1/orders").count == 1)
        // An idempotent request is still retried, the whole chain again.
        stub.on(.get, "/report", StubResponse(status: 302, headers: [.location: "/v1/files/report"]))
        stub.on(.get, "/files/report", [.failure(TransportError(.connectionFailed, "refused", requestMayHaveBeenSent: false)), .text("ok")])
        #expect(try await client.send(F.text(.get, "/report")) == "ok")
        #expect(stub.requests(matching: "/v1/report").count == 2)
    }

    @Test func doesNotRetryErrorsOutsideThePolicy() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", [.failure(TransportError(.tls, "bad certificate")), .text("ok")])
        let client = F.client(stub, [retry(clock: ManualClock())])
        await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/items")) }
        #expect(stub.requests.count == 1)
    }

    @Test func retries429OnlyWhenOptedIn() async throws {
        let stub = StubTransport()
        stub.on(.get, "/default", [.status(429), .text("ok")])
        stub.on(.get, "/opted", [.status(429), .text("ok")])
        var policy = RetryPolicy(jitter: .none)
        policy.retryableStatuses.insert(429)
        let plain = F.client(stub, [retry(clock: ManualClock())])
        let opted = F.client(stub, [retry(policy, clock: ManualClock())])
        await #expect(throws: APIError.self) { try await plain.send(F.text(.get, "/default")) }
        #expect(try await opted.send(F.text(.get, "/opted")) == "ok")
        #expect(stub.requests.count == 3)
    }

    @Test func drainsTheRejectedResponseBodyBeforeRetrying() async throws {
        let drained = Locked<[Bool]>([])
        let calls = Locked(0)
        let transport = MiddlewareTestTransport { _, _, _ in
            let call = calls.withLock { $0 += 1; return $0 }
            if call == 1 {
                let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
                continuation.onTermination = { _ in drained.withLock { $0.append(true) } }
                continuation.yield(ArraySlice("busy".utf8))
                continuation.finish()
                return (HTTPResponse(status: .serviceUnavailable), HTTPBody(stream, length: .unknown, iterationBehavior: .single))
            }
            return (HTTPResponse(status: .ok), HTTPBody("ok"))
        }
        let client = F.client(transport, [retry(clock: ManualClock())])
        #expect(try await client.send(F.text(.get, "/items")) == "ok")
        #expect(drained.current == [true])
    }

    @Test func stopsWhenTheBudgetIsSpent() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", .status(503))
        let budget = RetryBudget(retryRatio: 0.5, minRetriesPerSecond: 0)
        let client = F.client(stub, [retry(RetryPolicy(maxAttempts: 2, jitter: .none), clock: ManualClock(), budget: budget)])
        for _ in 0..<4 {
            await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/items")) }
        }
        // Four requests deposit two tokens: two retries in all.
        #expect(stub.requests.count == 6)
    }

    @Test func theSleepIsCancellable() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", [StubResponse.status(503).header(.retryAfter, "500"), .text("ok")])
        let client = F.client(stub, [RetryMiddleware(policy: RetryPolicy(maxDelay: .seconds(600)), budget: .unlimited)], timeout: .seconds(1000))
        let start = ContinuousClock.now
        let task = Task { try await client.send(F.text(.get, "/items")) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(start.duration(to: .now) < .seconds(90), "a hang guard: the retry would wait 500 s")
        #expect(stub.requests.count == 1)
    }
}
