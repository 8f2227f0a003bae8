import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct AuthenticationMiddlewareTests {
    private typealias F = MiddlewareFixtures

    @Test func addsABearerToken() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", .text("ok"))
        let client = F.client(stub, [AuthenticationMiddleware(.bearer("abc"))])
        _ = try await client.send(F.text(.get, "/me"))
        #expect(stub.requests.last?.headers[.authorization] == "Bearer abc")
    }

    @Test func leavesRequestsThatOptOutUnauthenticated() async throws {
        let stub = StubTransport()
        stub.on(.post, "/login", .text("ok"))
        let client = F.client(stub, [AuthenticationMiddleware(.bearer("abc"))])
        _ = try await client.send(F.text(.post, "/login", options: RequestOptions(authentication: .none)))
        #expect(stub.requests.last?.headers[.authorization] == nil)
    }

    @Test func addsBasicCredentials() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", .text("ok"))
        let client = F.client(stub, [AuthenticationMiddleware(.basic(username: "Aladdin", password: "open sesame"))])
        _ = try await client.send(F.text(.get, "/me"))
        #expect(stub.requests.last?.headers[.authorization] == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    @Test func addsAnAPIKeyHeaderAndMarksItSensitiveForRedirects() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", .text("ok"))
        let seen = Locked<Set<HTTPField.Name>>([])
        let spy = MiddlewareTestSpy { request, body, context, next in
            seen.withLock { $0 = context.sensitiveHeaders }
            return try await next(request, body, context)
        }
        let client = F.client(stub, [AuthenticationMiddleware(.apiKey("k-1", header: "X-Client-Key")), spy])
        _ = try await client.send(F.text(.get, "/me"))
        #expect(stub.requests.last?.headers[HTTPField.Name("X-Client-Key")!] == "k-1")
        #expect(seen.current.contains(HTTPField.Name("X-Client-Key")!))
    }

    @Test func addsAnAPIKeyToTheQuery() async throws {
        let stub = StubTransport()
        stub.on(.get, "/search", .text("ok"))
        let client = F.client(stub, [AuthenticationMiddleware(.apiKey("k 1&x", queryItem: "api_key"))])
        _ = try await client.send(F.text(.get, "/search").query("q", "swift"))
        #expect(stub.requests.last?.target == "/v1/search?q=swift&api_key=k%201%26x")
    }

    @Test("an API key sent as a query item is secret to what follows: an error names the request with the key redacted")
    func queryAPIKeyIsRedacted() async throws {
        let stub = StubTransport()
        stub.on(.get, "/maps", .status(500, message: "boom"))
        let client = F.client(stub, [AuthenticationMiddleware(.apiKey("AIza-SECRET", queryItem: "key")), ValidationMiddleware()])
        let error = await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/maps")) }
        #expect(stub.requests.last?.target.contains("key=AIza-SECRET") == true)   // sent…
        #expect(!"\(String(describing: error))".contains("AIza-SECRET"))          // …never shown
    }

    @Test("an API key for the query with CR, LF or NUL is refused, as a header's is, not sent percent-encoded")
    func refusesAQueryKeyWithALineBreak() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", .text("ok"))
        let client = F.client(stub, [AuthenticationMiddleware(.apiKey("k\r\n1", queryItem: "api_key"))])
        await #expect { try await client.send(F.text(.get, "/me")) } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .encodingFailed else { return false }
            return apiError.underlyingError is InvalidHeaderError
        }
        #expect(stub.requests.isEmpty)
    }

    @Test("a Basic username with ':' is refused before anything is sent (the server would read the rest as the password)")
    func refusesABasicUsernameWithAColon() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", .text("ok"))
        let client = F.client(stub, [AuthenticationMiddleware(.basic(username: "ada:ops", password: "pw"))])
        await #expect { try await client.send(F.text(.get, "/me")) } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .encodingFailed,
                  let invalid = apiError.underlyingError as? InvalidHeaderError else { return false }
            return invalid.reason.contains("RFC 7617")
        }
        #expect(stub.requests.isEmpty)
        let fine = F.client(stub, [AuthenticationMiddleware(.basic(username: "ada", password: "p:w"))])
        _ = try await fine.send(F.text(.get, "/me"))
        #expect(stub.requests.first?.headers[.authorization] == "Basic " + Data("ada:p:w".utf8).base64EncodedString())
    }

    @Test func refusesATokenWithALineBreakWithoutSendingIt() async throws {
        let stub = StubTransport()
        stub.on(.get, "/me", .text("ok"))
        let client = F.client(stub, [AuthenticationMiddleware(.bearer("abc\r\nX-Evil: 1"))])
        await #expect { try await client.send(F.text(.get, "/me")) } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .encodingFailed, let underlying = apiError.underlyingError else { return false }
            return underlying is InvalidHeaderError && !"\(error)".contains("X-Evil")
        }
        #expect(stub.requests.isEmpty)
    }

    @Test func fiftyConcurrent401sRefreshOnceAndRetryEachWithTheNewToken() async throws {
        let provider = CountingTokenProvider()
        let barrier = MiddlewareTestBarrier(count: 50)
        let stub = StubTransport()
        stub.on(.get, "/items/{id}") { request in
            if request.headers[.authorization] == "Bearer token-2" { return .text("ok") }
            await barrier.arrive()          // every first attempt is in flight before any 401 returns
            return .status(401)
        }
        let client = F.client(stub, [AuthenticationMiddleware(.bearer(F.refresher(provider)))])
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for id in 0..<50 { group.addTask { try await client.send(F.text(.get, "/items/\(id)")) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: "ok", count: 50))
        #expect(provider.refreshes == 1)
        #expect(provider.loads == 1)
        let tokens = stub.requests.map { $0.headers[.authorization] ?? "" }
        #expect(tokens.filter { $0 == "Bearer token-1" }.count == 50)
        #expect(tokens.filter { $0 == "Bearer token-2" }.count == 50)
    }

    @Test func aFailedRefreshFailsEveryRequestOnceWithOneClearError() async throws {
        let provider = CountingTokenProvider(failRefresh: true)
        let barrier = MiddlewareTestBarrier(count: 50)
        let stub = StubTransport()
        stub.on(.get, "/items/{id}") { _ in
            await barrier.arrive()
            return .status(401)
        }
        let client = F.client(stub, [AuthenticationMiddleware(.bearer(F.refresher(provider)))])
        let errors = await withTaskGroup(of: (any Error)?.self) { group in
            for id in 0..<50 {
                group.addTask {
                    do { _ = try await client.send(F.text(.get, "/items/\(id)")); return nil } catch { return error }
                }
            }
            return await group.reduce(into: [(any Error)?]()) { $0.append($1) }
        }
        #expect(provider.refreshes == 1)
        #expect(stub.requests.count == 50)   // nobody was retried with a token that does not exist
        for error in errors {
            let auth = try #require((error as? APIError)?.underlyingError as? AuthenticationError)
            #expect(auth.kind == .refreshFailed)
        }
    }

    @Test("retry: .never is sent once: a 401 is returned, not sent again (the token is still renewed for the requests that follow)")
    func neverRetriedRequestIsSentOnce() async throws {
        let provider = CountingTokenProvider()
        let stub = StubTransport()
        stub.on(.post, "/pay", .status(401))
        let client = F.client(stub, [AuthenticationMiddleware(.bearer(F.refresher(provider)))])
        let pay = Request<Data>(method: .post, path: "/pay", body: .json(["amount": 1]), options: RequestOptions(retry: .never))
        await #expect { try await client.send(pay) } throws: { ($0 as? APIError)?.statusCode == 401 }
        #expect(stub.requests.count == 1)
        #expect(provider.refreshes == 1)
    }

    @Test func aSecond401AfterTheRefreshIsReturnedNotLooped() async throws {
        let provider = CountingTokenProvider()
        let stub = StubTransport()
        stub.on(.get, "/me", .status(401))
        let client = F.client(stub, [AuthenticationMiddleware(.bearer(F.refresher(provider)))])
        await #expect { try await client.send(F.text(.get, "/me")) } throws: { ($0 as? APIError)?.statusCode == 401 }
        #expect(stub.requests.map(\.attempt) == [1, 2])
        #expect(provider.refreshes == 1)
    }

    @Test func aRequestSentWithAnOlderTokenIsRetriedWithoutAnotherRefresh() async throws {
        let provider = CountingTokenProvider()
        let middleware = AuthenticationMiddleware(.bearer(F.refresher(provider)))
        let refresher = try #require(middleware.refresher)
        let slowRelease = MiddlewareTestBarrier(count: 2)
        let stub = StubTransport()
        stub.on(.get, "/slow") { request in
            if request.headers[.authorization] == "Bearer token-1" {
                await slowRelease.arrive()   // held until the other request has refreshed
                return .status(401)
            }
            return .text("slow ok")
        }
        stub.on(.get, "/fast") { request in
            request.headers[.authorization] == "Bearer token-2" ? .text("fast ok") : .status(401)
        }
        let client = F.client(stub, [middleware])
        _ = try await refresher.token()
        async let slow = client.send(F.text(.get, "/slow"))
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await client.send(F.text(.get, "/fast")) == "fast ok")
        await slowRelease.arrive()
        #expect(try await slow == "slow ok")
        #expect(provider.refreshes == 1)
    }

    @Test("a 401 from the origin a redirect led to is that origin's answer: it never saw the token, so no refresh and no retry")
    func aCrossOriginRedirectTargets401DoesNotRefresh() async throws {
        let provider = CountingTokenProvider()
        let stub = StubTransport()
        stub.on(.get, "/v1/report", StubResponse(status: 302, headers: [.location: "https://cdn.example.net/files/report"]))
        stub.on(.get, "/files/report", .status(401))
        let client = F.client(stub, [AuthenticationMiddleware(.bearer(F.refresher(provider)))])
        await #expect { try await client.send(F.text(.get, "/report")) } throws: { ($0 as? APIError)?.statusCode == 401 }
        #expect(provider.refreshes == 0)
        #expect(stub.requests.map(\.target) == ["/v1/report", "/files/report"])
        #expect(stub.requests.last?.headers[.authorization] == nil)
    }

    @Test("a 401 after a redirect within the origin still refreshes: the token went along")
    func aSameOriginRedirectTargets401Refreshes() async throws {
        let provider = CountingTokenProvider()
        let stub = StubTransport()
        stub.on(.get, "/v1/old") { _ in StubResponse(status: 302, headers: [.location: "/v1/new"]) }
        stub.on(.get, "/v1/new") { request in
            request.headers[.authorization] == "Bearer token-2" ? .text("ok") : .status(401)
        }
        let client = F.client(stub, [AuthenticationMiddleware(.bearer(F.refresher(provider)))])
        #expect(try await client.send(F.text(.get, "/old")) == "ok")
        #expect(provider.refreshes == 1)
    }

    @Test("a POST answered by a redirect to a page that answers 401 is not sent again: the server handled it")
    func aRedirectedPostEndingIn401IsNotResent() async throws {
        let provider = CountingTokenProvider()
        let stub = StubTransport()
        stub.on(.post, "/orders", StubResponse(status: 303, headers: [.location: "/v1/orders/1"]))
        stub.on(.get, "/orders/1", .status(401))
        let client = F.client(stub, [AuthenticationMiddleware(.bearer(F.refresher(provider)))])
        await #expect { try await client.send(F.text(.post, "/orders", body: .data(Data("{}".utf8), contentType: "application/json"))) }
            throws: { ($0 as? APIError)?.statusCode == 401 }
        #expect(stub.requests.filter { $0.method == .post }.count == 1)
        #expect(provider.refreshes == 0)
    }

    @Test func doesNotRetryA401WhoseBodyCannotBeSentAgain() async throws {
        let provider = CountingTokenProvider()
        let stub = StubTransport()
        stub.on(.put, "/upload", .status(401))
        let client = F.client(stub, [AuthenticationMiddleware(.bearer(F.refresher(provider)))])
        let request = F.text(.put, "/upload", body: .stream(F.singlePassBody("data")))
        await #expect { try await client.send(request) } throws: { ($0 as? APIError)?.statusCode == 401 }
        #expect(stub.requests.count == 1)
        #expect(provider.refreshes == 0)
    }
}
