import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// A transport that holds every exchange until the test opens it, counting exchanges and
/// noticing when one is cancelled.
private final class HeldTransport: Transport {
    private let state = Locked<(calls: Int, cancelled: Int, open: Bool, waiting: [CheckedContinuation<Void, Never>])>((0, 0, false, []))

    var calls: Int { state.current.calls }
    var cancelled: Int { state.current.cancelled }

    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }

    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        let call = state.withLock { state -> Int in
            state.calls += 1
            return state.calls
        }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
        if Task.isCancelled {
            state.withLock { $0.cancelled += 1 }
            throw CancellationError()
        }
        return (HTTPResponse(status: .ok), HTTPBody("call \(call) for \(request.path ?? "")"))
    }
}

@Suite("CoalescingMiddleware")
struct CoalescingMiddlewareTests {
    /// Waits (bounded) until `condition` holds; the middleware's count is the only signal that
    /// callers have joined.
    private func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<12_000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }  // ≥ 60 s: a loaded CI machine stalls tests for 20 s
        #expect(condition())
    }

    @Test("five identical GETs in flight share one exchange; each caller gets the value")
    func identicalRequestsShareOneExchange() async throws {
        let transport = HeldTransport()
        let coalescing = CoalescingMiddleware()
        let client = MiddlewareFixtures.client(transport, [coalescing])
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<5 { group.addTask { try await client.send(MiddlewareFixtures.text(.get, "/me")) } }
            try await eventually { coalescing.joinedCount == 4 }
            transport.open()
            var values: [String] = []
            for try await value in group { values.append(value) }
            #expect(values == Array(repeating: "call 1 for /v1/me", count: 5))
        }
        #expect(transport.calls == 1)
    }

    @Test("with the client's cookie jar, a request whose session cookie changed (logout, another login) never joins one sent with the old cookie; the same cookie still shares")
    func cookieJarSessionsDoNotShare() async throws {
        let transport = HeldTransport()
        let coalescing = CoalescingMiddleware()
        let jar = CookieJar()
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.cookieJar = jar
        let client = APIClient(configuration: configuration, transport: transport, middleware: [coalescing])
        let site = URL(string: "https://api.example.com/")!
        _ = jar.setCookie("session=alice; Path=/", for: site)
        let alice = Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
        let aliceAgain = Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
        try await eventually { transport.calls == 1 && coalescing.joinedCount == 1 }
        jar.removeAll()
        _ = jar.setCookie("session=bob; Path=/", for: site)
        let bob = Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
        try await eventually { transport.calls == 2 || coalescing.joinedCount == 2 }
        transport.open()
        #expect(try await alice.value == "call 1 for /v1/me")
        #expect(try await aliceAgain.value == "call 1 for /v1/me")
        #expect(try await bob.value == "call 2 for /v1/me")
        #expect(coalescing.joinedCount == 1)
    }

    @Test("different credentials, URLs or methods never share a response")
    func differentRequestsDoNotShare() async throws {
        let transport = HeldTransport()
        transport.open()
        let coalescing = CoalescingMiddleware()
        let client = MiddlewareFixtures.client(transport, [coalescing])
        async let alice = client.send(MiddlewareFixtures.text(.get, "/me", headers: [.authorization: "Bearer alice"]))
        async let bob = client.send(MiddlewareFixtures.text(.get, "/me", headers: [.authorization: "Bearer bob"]))
        async let other = client.send(MiddlewareFixtures.text(.get, "/you"))
        async let post = client.send(MiddlewareFixtures.text(.post, "/me", body: .data(Data("x".utf8), contentType: "text/plain")))
        _ = try await (alice, bob, other, post)
        #expect(transport.calls == 4)
        #expect(coalescing.joinedCount == 0)
    }

    @Test("requests whose options change the exchange below the middleware (redirect policy, size limit, idle timeout, cache policy) never share one")
    func differentOptionsNeverShare() async throws {
        let transport = HeldTransport()
        let coalescing = CoalescingMiddleware()
        let client = MiddlewareFixtures.client(transport, [coalescing])
        var noRedirects = RequestOptions()
        noRedirects.redirectPolicy = RedirectPolicy.none
        var small = RequestOptions()
        small.maxResponseSize = 1_000
        var idle = RequestOptions()
        idle.idleTimeout = .seconds(30)
        var offline = RequestOptions()
        offline.cachePolicy = .returnCacheElseLoad
        let variants = [RequestOptions(), noRedirects, small, idle, offline]
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for options in variants {
                group.addTask { try await client.send(MiddlewareFixtures.text(.get, "/same", options: options)) }
            }
            try await eventually { transport.calls == variants.count }
            transport.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(results.count == variants.count)
        #expect(coalescing.joinedCount == 0)
    }

    @Test("a cancelled waiting caller leaves at once; the exchange goes on for the others")
    func cancelledWaiterLeaves() async throws {
        let transport = HeldTransport()
        let coalescing = CoalescingMiddleware()
        let client = MiddlewareFixtures.client(transport, [coalescing])
        let leader = Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
        try await eventually { transport.calls == 1 }
        let waiter = Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
        try await eventually { coalescing.joinedCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        transport.open()
        #expect(try await leader.value == "call 1 for /v1/me")
        #expect(transport.calls == 1)
        #expect(transport.cancelled == 0)
    }

    @Test("a waiting caller keeps its own timeout: it fails with a timeout at its deadline while a longer exchange goes on")
    func waiterTimesOut() async throws {
        let transport = HeldTransport()
        let coalescing = CoalescingMiddleware()
        let client = MiddlewareFixtures.client(transport, [coalescing])
        let leader = Task { try await client.send(MiddlewareFixtures.text(.get, "/report", options: RequestOptions(timeout: .seconds(600)))) }
        try await eventually { transport.calls == 1 }
        let start = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            try await client.send(MiddlewareFixtures.text(.get, "/report", options: RequestOptions(timeout: .milliseconds(200))))
        }
        #expect(error?.kind == .timeout)
        #expect(error?.timeLimit == .milliseconds(200), "the waiter's own limit, not the leader's 600 s")
        #expect(start.duration(to: .now) < .seconds(90), "a hang guard: the waiter must not wait for the leader's 600 s")
        transport.open()
        #expect(try await leader.value == "call 1 for /v1/report")
        #expect(transport.calls == 1)
    }

    @Test("a cancelled leader stops its exchange; a waiting caller sends the request again and gets the value")
    func cancelledLeaderHandsOver() async throws {
        let transport = HeldTransport()
        let coalescing = CoalescingMiddleware()
        let client = MiddlewareFixtures.client(transport, [coalescing])
        let leader = Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
        try await eventually { transport.calls == 1 }
        let waiters = (0..<2).map { _ in Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) } }
        try await eventually { coalescing.joinedCount == 2 }
        leader.cancel()
        transport.open()
        await #expect(throws: CancellationError.self) { try await leader.value }
        for waiter in waiters { #expect(try await waiter.value == "call 2 for /v1/me") }
        #expect(transport.calls == 2)
        #expect(transport.cancelled == 1)
        #expect(coalescing.joinedCount == 1)
    }

    @Test("when every caller is cancelled, no exchange is left running")
    func everyCallerCancelledCancelsTheExchange() async throws {
        let transport = HeldTransport()
        let coalescing = CoalescingMiddleware()
        let client = MiddlewareFixtures.client(transport, [coalescing])
        let leader = Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) }
        try await eventually { transport.calls == 1 }
        let waiters = (0..<2).map { _ in Task { try await client.send(MiddlewareFixtures.text(.get, "/me")) } }
        try await eventually { coalescing.joinedCount == 2 }
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters { await #expect(throws: CancellationError.self) { try await waiter.value } }
        leader.cancel()
        transport.open()
        await #expect(throws: CancellationError.self) { try await leader.value }
        #expect(transport.calls == 1)
        #expect(transport.cancelled == 1)
        // The next request goes out again: nothing was kept.
        #expect(try await client.send(MiddlewareFixtures.text(.get, "/me")) == "call 2 for /v1/me")
    }

    @Test("per request: false keeps a request out; with .requestsThatAsk only true joins")
    func perRequestOptIn() async throws {
        let transport = HeldTransport()
        let coalescing = CoalescingMiddleware(scope: .requestsThatAsk)
        let client = MiddlewareFixtures.client(transport, [coalescing])
        var asks = RequestOptions()
        asks.coalescesIdenticalRequests = true
        var refuses = RequestOptions()
        refuses.coalescesIdenticalRequests = false
        async let a = client.send(MiddlewareFixtures.text(.get, "/me", options: asks))
        async let b = client.send(MiddlewareFixtures.text(.get, "/me", options: asks))
        try await eventually { coalescing.joinedCount == 1 }
        async let c = client.send(MiddlewareFixtures.text(.get, "/me"))
        async let d = client.send(MiddlewareFixtures.text(.get, "/me", options: refuses))
        try await eventually { transport.calls == 3 }
        transport.open()
        _ = try await (a, b, c, d)
        #expect(transport.calls == 3)
        #expect(coalescing.joinedCount == 1)
    }

    @Test("streamed responses are not shared: bytes(for:) always gets its own exchange")
    func streamsAreNotShared() async throws {
        let transport = HeldTransport()
        transport.open()
        let coalescing = CoalescingMiddleware()
        let client = MiddlewareFixtures.client(transport, [coalescing])
        async let one = client.bytes(for: MiddlewareFixtures.text(.get, "/me"))
        async let two = client.bytes(for: MiddlewareFixtures.text(.get, "/me"))
        _ = try await (one, two)
        #expect(transport.calls == 2)
        #expect(coalescing.joinedCount == 0)
    }
}
