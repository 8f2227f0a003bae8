import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite("Redirects")
struct RedirectTests {
    private func redirect(_ status: Int = 302, to location: String) -> StubResponse {
        StubResponse(status: status, headers: [.location: location])
    }

    private let secretHeaders: RequestHeaders = [
        .authorization: "Bearer t0ken", .cookie: "session=1", .init("X-Auth-Token")!: "t-1", .init("X-Api-Key")!: "k",
    ]

    @Test("same-origin redirects keep credentials")
    func sameOriginKeepsCredentials() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/old", redirect(to: "/v2/new"))
        stub.on(.get, "/new", .text("ok"))
        _ = try await client.send(Request<String>(path: "/old", headers: secretHeaders))
        #expect(stub.requests.count == 2)
        #expect(stub.requests[1].headers[.authorization] == "Bearer t0ken")
    }

    @Test("credentials are dropped when the redirect leaves the origin, and stay dropped")
    func crossOriginStripsCredentials() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/old", redirect(to: "https://evil.example.net/steal"))
        stub.on(.get, "/steal", redirect(to: "https://api.example.com/v2/back"))
        stub.on(.get, "/back", .text("ok"))
        var options = RequestOptions()
        options.sensitiveRedirectHeaders = [.init("X-Api-Key")!]
        _ = try await client.send(Request<String>(path: "/old", headers: secretHeaders, options: options))
        let hops = stub.requests
        #expect(hops.map(\.request.authority) == ["api.example.com", "evil.example.net", "api.example.com"])
        for hop in hops.dropFirst() {
            #expect(hop.headers[.authorization] == nil)
            #expect(hop.headers[.cookie] == nil)
            #expect(hop.headers[.init("X-Auth-Token")!] == nil)
            #expect(hop.headers[.init("X-Api-Key")!] == nil)
        }
    }

    @Test("the client's default headers and Accept-Language stay with its origin: a redirect elsewhere drops them, as a request built for elsewhere lacks them")
    func crossOriginDropsDefaultHeaders() async throws {
        let (client, stub) = makeClient { configuration in
            configuration.sendsPreferredLanguages = true
            configuration.defaultHeaders = [.init("X-Client-Id")!: "app-7"]
        }
        stub.on(.get, "/old", redirect(to: "https://other.example.net/x"))
        stub.on(.get, "/x", .text("ok"))
        _ = try await client.send(Request<String>(path: "/old"))
        let (first, second) = (stub.requests[0], stub.requests[1])
        #expect(first.headers[.init("X-Client-Id")!] == "app-7")
        #expect(second.request.authority == "other.example.net")
        #expect(second.headers[.init("X-Client-Id")!] == nil)
        #expect(second.headers[.acceptLanguage] == nil)
        #expect(second.headers[.accept] != nil)
        #expect(second.headers[.userAgent] != nil)
    }

    @Test("validators (If-None-Match, If-Modified-Since…) do not follow a redirect to another origin; they do within the origin")
    func validatorsStayWithTheirOrigin() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/a", redirect(to: "/v2/b"))
        stub.on(.get, "/b", redirect(to: "https://cdn.example.net/c"))
        stub.on(.get, "/c", .text("ok"))
        _ = try await client.send(Request<String>(path: "/a", headers: [.ifNoneMatch: "\"v1\"", .ifModifiedSince: "Sun, 06 Nov 1994 08:49:37 GMT"]))
        #expect(stub.requests.map { $0.headers[.ifNoneMatch] } == ["\"v1\"", "\"v1\"", nil])
        #expect(stub.requests.last?.headers[.ifModifiedSince] == nil)
    }

    @Test("a different port is a different origin")
    func portIsPartOfOrigin() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/old", redirect(to: "https://api.example.com:8443/x"))
        stub.on(.get, "/x", .text("ok"))
        _ = try await client.send(Request<String>(path: "/old", headers: secretHeaders))
        #expect(stub.requests[1].headers[.authorization] == nil)
    }

    @Test("https → http is refused by default")
    func downgradeRefused() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/old", redirect(to: "http://api.example.com/v2/new"))
        await #expect {
            try await client.send(Request<String>(path: "/old"))
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError else { return false }
            return underlying is RedirectError && "\(error)".contains("downgrade")
        }
        #expect(stub.requests.count == 1)
    }

    @Test("303 turns the request into a GET without body or Content-* headers")
    func seeOther() async throws {
        let (client, stub) = makeClient()
        stub.on(.post, "/form", redirect(303, to: "/v2/result"))
        stub.on(.get, "/result", .text("done"))
        _ = try await client.send(Request<String>(method: .post, path: "/form", body: .json(NewUser(name: "A"))))
        let second = try #require(stub.requests.last)
        #expect(second.method == .get)
        #expect(second.body.isEmpty)
        #expect(second.headers[.contentType] == nil)
    }

    @Test("307 resends the same method and body")
    func temporaryRedirectKeepsBody() async throws {
        let (client, stub) = makeClient()
        stub.on(.post, "/a", redirect(307, to: "/v2/b"))
        stub.on(.post, "/b", .text("ok"))
        _ = try await client.send(Request<String>(method: .post, path: "/a", body: .json(NewUser(name: "A"))))
        #expect(stub.requests.map(\.bodyText) == [#"{"name":"A"}"#, #"{"name":"A"}"#])
    }

    @Test("loops and long chains end in an error", arguments: [10, 11])
    func limits(_ hops: Int) async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/loop", redirect(to: "/v2/loop"))
        stub.on(.get, "/hop/{n}", handler: { request in
            let n = Int(request.path.split(separator: "/").last!)!
            return n >= hops ? .text("end") : StubResponse(status: 302, headers: [.location: "/v2/hop/\(n + 1)"])
        })
        await #expect(throws: APIError.self) { try await client.send(Request<String>(path: "/loop")) }
        if hops == 10 {
            #expect(try await client.send(Request<String>(path: "/hop/0")) == "end")
        } else {
            await #expect(throws: APIError.self) { try await client.send(Request<String>(path: "/hop/0")) }
        }
    }

    @Test("only http and https targets are followed")
    func otherSchemesRefused() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/old", redirect(to: "file:///etc/passwd"))
        await #expect(throws: APIError.self) { try await client.send(Request<String>(path: "/old")) }
    }

    @Test("RedirectPolicy.none returns the 3xx as it is")
    func notFollowed() async throws {
        let (client, stub) = makeClient { $0.redirectPolicy = .none; $0.acceptableStatusCodes = Set(200..<400) }
        stub.on(.get, "/old", redirect(to: "/v2/new"))
        let response = try await client.response(for: Request<Data>(path: "/old"))
        #expect(response.statusCode == 302)
        #expect(stub.requests.count == 1)
    }
}
