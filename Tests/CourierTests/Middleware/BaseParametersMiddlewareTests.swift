import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct BaseParametersMiddlewareTests {
    private typealias F = MiddlewareFixtures
    private static let device = [URLQueryItem(name: "os", value: "iOS"), URLQueryItem(name: "appVersion", value: "1.2 beta")]

    @Test func addsParametersToTheQuery() async throws {
        let stub = StubTransport()
        stub.on(.get, "/config", .text("ok"))
        let client = F.client(stub, [BaseParametersMiddleware(Self.device)])
        _ = try await client.send(F.text(.get, "/config").query("os", "mine"))
        #expect(stub.requests.last?.target == "/v1/config?os=mine&appVersion=1.2%20beta")
    }

    @Test func aRequestCanOptOut() async throws {
        let stub = StubTransport()
        stub.on(.get, "/config", .text("ok"))
        let client = F.client(stub, [BaseParametersMiddleware(Self.device)])
        _ = try await client.send(F.text(.get, "/config", options: RequestOptions(includeBaseParameters: false)))
        #expect(stub.requests.last?.target == "/v1/config")
    }

    @Test("as headers, an item without a value is left out, as in the query — not sent empty")
    func aHeaderWithoutAValueIsLeftOut() async throws {
        let stub = StubTransport()
        stub.on(.get, "/config", .text("ok"))
        let ticket = HTTPField.Name("pub_ticket")!
        let client = F.client(stub, [BaseParametersMiddleware([URLQueryItem(name: "pub_ticket", value: nil), URLQueryItem(name: "os", value: "iOS")], placement: .headers)])
        _ = try await client.send(F.text(.get, "/config"))
        #expect(stub.requests.last?.headers[ticket] == nil)
        #expect(stub.requests.last?.headers[HTTPField.Name("os")!] == "iOS")
    }

    @Test("scope .credentials: a request without base parameters still gets them, one with authentication: .none does not")
    func credentialsScope() async throws {
        let stub = StubTransport()
        stub.on(.get, "/**", .text("ok"))
        let ticket = HTTPField.Name("pub_ticket")!
        let client = F.client(stub, [
            BaseParametersMiddleware(Self.device),
            BaseParametersMiddleware([URLQueryItem(name: "pub_ticket", value: "T-1")], placement: .headers, for: .credentials),
        ])
        _ = try await client.send(F.text(.get, "/a", options: RequestOptions(includeBaseParameters: false)))
        _ = try await client.send(F.text(.get, "/b", options: RequestOptions(authentication: .none)))
        _ = try await client.send(F.text(.get, "/c"))
        let sent = stub.requests
        #expect(sent.map(\.target) == ["/v1/a", "/v1/b?os=iOS&appVersion=1.2%20beta", "/v1/c?os=iOS&appVersion=1.2%20beta"])
        #expect(sent.map { $0.headers[ticket] } == ["T-1", nil, "T-1"])
    }

    @Test("headers it adds stay at the base URL's origin: a redirect to another origin drops them")
    func headersDoNotFollowACrossOriginRedirect() async throws {
        let stub = StubTransport()
        stub.on(.get, "/v1/report", StubResponse(status: 302, headers: [.location: "https://cdn.example.net/files/report"]))
        stub.on(.get, "/files/report", .text("ok"))
        let device = HTTPField.Name("X-Device-Id")!
        let uid = HTTPField.Name("pub_uid")!
        let client = F.client(stub, [
            BaseParametersMiddleware([URLQueryItem(name: "X-Device-Id", value: "D-1")], placement: .headers),
            BaseParametersMiddleware([URLQueryItem(name: "pub_uid", value: "U-1")], placement: .headers, for: .credentials),
        ])
        _ = try await client.send(F.text(.get, "/report"))
        #expect(stub.requests.first?.headers[device] == "D-1")
        #expect(stub.requests.first?.headers[uid] == "U-1")
        #expect(stub.requests.last?.headers[device] == nil)
        #expect(stub.requests.last?.headers[uid] == nil)
    }

    @Test func mergesIntoFormAndJSONBodies() async throws {
        let stub = StubTransport()
        stub.on(.post, "/**", .text("ok"))
        let client = F.client(stub, [BaseParametersMiddleware(Self.device, placement: .body)])
        _ = try await client.send(F.text(.post, "/login", body: .form([("username", "ada")])))
        _ = try await client.send(F.text(.post, "/json", body: .json(["username": "ada"])))
        let requests = stub.requests
        #expect(requests[0].bodyText == "username=ada&os=iOS&appVersion=1.2+beta")
        #expect(requests[1].bodyText == #"{"appVersion":"1.2 beta","os":"iOS","username":"ada"}"#)
        #expect(requests.allSatisfy { $0.query == nil })
    }

    @Test("an upload's progress handler hears of the merged body, counted against its new length")
    func mergedBodyKeepsUploadProgress() async throws {
        let stub = StubTransport()
        stub.on(.post, "/**", .text("ok"))
        let client = F.client(stub, [BaseParametersMiddleware(Self.device, placement: .body)])
        for body in [RequestBody.form([("username", "ada")]), .json(["username": "ada"])] {
            let reports = LockedBox<[TransferProgress]>([])
            _ = try await client.upload(F.text(.post, "/upload", body: body)) { p in reports.withLock { $0.append(p) } }
            let sent = try #require(stub.requests.last?.body)
            #expect(sent.count > 20, "the parameters were merged in")
            #expect(reports.withLock { $0 }.last == TransferProgress(completedBytes: Int64(sent.count), totalBytes: Int64(sent.count)))
        }
    }

    @Test func mergesIntoAFormBodyWithEmptyAndNamelessPairs() async throws {
        let stub = StubTransport()
        stub.on(.post, "/**", .text("ok"))
        let client = F.client(stub, [BaseParametersMiddleware(Self.device, placement: .body)])
        for (form, expected) in [
            ("name=Ada&=&lang=en", "name=Ada&=&lang=en&os=iOS&appVersion=1.2+beta"),
            ("=", "=&os=iOS&appVersion=1.2+beta"),
            ("&&=x&os", "&&=x&os&appVersion=1.2+beta"),
        ] {
            _ = try await client.send(F.text(.post, "/form", body: .data(Data(form.utf8), contentType: "application/x-www-form-urlencoded")))
            #expect(stub.requests.last?.bodyText == expected)
        }
    }

    @Test func fallsBackToTheQueryForAStreamedBodyWithoutReadingIt() async throws {
        let stub = StubTransport()
        stub.on(.post, "/upload", .text("ok"))
        let client = F.client(stub, [BaseParametersMiddleware(Self.device, placement: .body)])
        _ = try await client.send(F.text(.post, "/upload", body: .stream(F.singlePassBody("raw"), contentType: "application/json")))
        #expect(stub.requests.last?.bodyText == "raw")
        #expect(stub.requests.last?.query == "os=iOS&appVersion=1.2%20beta")
    }

    @Test func computesParametersPerRequestAndCanUseHeaders() async throws {
        let stub = StubTransport()
        stub.on(.get, "/x", .text("ok"))
        let counter = Locked(0)
        let middleware = BaseParametersMiddleware(placement: .headers) {
            let n = counter.withLock { $0 += 1; return $0 }
            return [URLQueryItem(name: "X-Request-Number", value: "\(n)")]
        }
        let client = F.client(stub, [middleware])
        _ = try await client.send(F.text(.get, "/x"))
        _ = try await client.send(F.text(.get, "/x"))
        #expect(stub.requests.map { $0.headers[HTTPField.Name("X-Request-Number")!] } == ["1", "2"])
    }

    @Test func refusesAHeaderValueWithALineBreak() async throws {
        let stub = StubTransport()
        let client = F.client(stub, [BaseParametersMiddleware([URLQueryItem(name: "X-Device", value: "a\r\nb")], placement: .headers)])
        await #expect(throws: APIError.self) { try await client.send(F.text(.get, "/x")) }
        #expect(stub.requests.isEmpty)
    }
}
