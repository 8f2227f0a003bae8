import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Protocol requests with a response type: a request struct per endpoint.
struct GetUser: APIRequest {
    typealias Response = User
    let id: String
    var path: RequestPath { "/users/{id}" }
    var pathParameters: [String: String] { ["id": id] }
}

@Suite("APIClient")
struct APIClientTests {
    @Test("send decodes JSON into the request's response type")
    func sendDecodes() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/{id}", .json(User(id: 7, name: "Ada")))
        let user = try await client.send(GetUser(id: "7"))
        #expect(user == User(id: 7, name: "Ada"))
        #expect(stub.requests.first?.path == "/v2/users/7")
        #expect(stub.requests.first?.operationName == "GetUser")
    }

    @Test("response(for:) returns the value, the HTTP response, the body and timing")
    func responseWithMetadata() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/1", StubResponse.json(User(id: 1, name: "A")).header(.init("X-Rate")!, "9"))
        let response = try await client.response(for: GetUser(id: "1"))
        #expect(response.value.id == 1)
        #expect(response.statusCode == 200)
        #expect(response.response.headerFields[.init("X-Rate")!] == "9")
        #expect(response.metrics.responseBytes == response.body.count)
        #expect(response.metrics.duration >= response.metrics.timeToResponse)
    }

    @Test("Data, String, Empty and Void responses need no decoder")
    func builtInResponseTypes() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/text", .text("héllo"))
        stub.on(.delete, "/users/1", .status(204))
        stub.on(.head, "/users/1", .status(200))
        #expect(try await client.send(Request<String>(path: "/text")) == "héllo")
        #expect(try await client.send(Request<Data>(path: "/text")) == Data("héllo".utf8))
        #expect(try await client.send(Request<Empty>(method: .delete, path: "/users/1")) == Empty())
        try await client.send(Request<Void>(method: .head, path: "/users/1"))
    }

    @Test("a 404 is an httpError with the status, the server's message and a body prefix")
    func httpError() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/404", .json(#"{"error":"not_found","message":"No user with id 404"}"#, status: 404))
        do {
            _ = try await client.send(GetUser(id: "404"))
            Issue.record("expected an error")
        } catch let error as APIError {
            guard error.kind == .httpError, let status = error.statusCode, let response = error.response,
                  let request = error.request else {
                Issue.record("wrong kind \(error)"); return
            }
            let message = error.message, body = error.body
            #expect(status == 404)
            #expect(message == "No user with id 404")
            #expect(response.status == .notFound)
            #expect(!body.isEmpty)
            #expect(request.url == "https://api.example.com/v2/users/404")
            #expect(error.description.hasPrefix("HTTP 404 for GET https://api.example.com/v2/users/404: No user with id 404 — body: {\"error\""))
        }
    }

    @Test("acceptable status codes are configurable per client and per request")
    func acceptableStatusCodes() async throws {
        let (client, stub) = makeClient { $0.acceptableStatusCodes = Set(200..<300).union([304]) }
        stub.on(.get, "/cached", .status(304))
        stub.on(.get, "/gone", .status(410))
        _ = try await client.send(Request<Data>(path: "/cached"))
        _ = try await client.send(Request<Data>(path: "/gone", options: RequestOptions(acceptableStatusCodes: [410])))
    }

    @Test("malformed JSON is a decodingFailed error with the coding path")
    func decodingFailure() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/1", .json(#"{"id": "seven", "name": "A"}"#))
        await #expect {
            try await client.send(GetUser(id: "1"))
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .decodingFailed, let type = apiError.decodedType else { return false }
            return type == "User" && "\(error)".contains("type mismatch at id")
        }
    }

    enum HostileJSON: String, CaseIterable, Sendable {
        case deepNesting, hugeExponent, millionDigits

        var text: String {
            switch self {
            case .deepNesting: return String(repeating: "[", count: 1_000_000)
            case .hugeExponent: return #"{"id": 1e999999, "name": "x"}"#
            case .millionDigits: return "{\"id\": \(String(repeating: "9", count: 1_000_000)), \"name\": \"x\"}"
            }
        }
    }

    @Test("hostile JSON is a typed error, never a crash", arguments: HostileJSON.allCases)
    func hostileJSON(_ input: HostileJSON) async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/1", .json(input.text))
        await #expect { try await client.send(GetUser(id: "1")) } throws: { error in
            (error as? APIError)?.kind == .decodingFailed
        }
    }

    @Test("invalid UTF-8 is a decoding error for String responses")
    func invalidUTF8() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/bytes", .data(Data([0xC3, 0x28])))
        await #expect(throws: APIError.self) { try await client.send(Request<String>(path: "/bytes")) }
    }

    @Test("a body over maxResponseSize is refused with resourceTooLarge")
    func sizeLimit() async throws {
        let (client, stub) = makeClient { $0.maxResponseSize = 1_000 }
        stub.on(.get, "/big", .data(Data(count: 1_001)))
        stub.on(.get, "/fits", .data(Data(count: 1_000)))
        await #expect {
            try await client.send(Request<Data>(path: "/big"))
        } throws: { error in
            if let apiError = error as? APIError, apiError.kind == .resourceTooLarge, let limit = apiError.sizeLimit { return limit == 1_000 }
            return false
        }
        #expect(try await client.send(Request<Data>(path: "/fits")).count == 1_000)
        let perRequest = Request<Data>(path: "/big", options: RequestOptions(maxResponseSize: 2_000))
        #expect(try await client.send(perRequest).count == 1_001)
    }

    @Test("an error status whose body passes maxResponseSize still reports the status, with the body's first maxResponseSize bytes")
    func errorLargerThanTheLimit() async throws {
        let (client, stub) = makeClient { $0.maxResponseSize = 1_000 }
        stub.on(.get, "/busy", .data(Data(repeating: UInt8(ascii: "x"), count: 2_000), contentType: "text/html", status: 503))
        let error = await #expect(throws: APIError.self) { try await client.send(Request<Data>(path: "/busy")) }
        #expect(error?.kind == .httpError)
        #expect(error?.statusCode == 503)
        #expect(error?.body.count == 1_000)
    }

    @Test("a transport learns the size past which the whole body fails: a collected body's limit, a byte stream's own; none for an event stream or stream(for:)")
    func responseBodyLimitPerExchange() async throws {
        let seen = Locked<[Int?]>([])
        let transport = MiddlewareTestTransport { _, _, context in
            seen.withLock { $0.append(context.bodyChannels.responseLimit) }
            return (HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]), HTTPBody("data: x\n\n"))
        }
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.maxResponseSize = 5_000
        let client = APIClient(configuration: configuration, transport: transport)
        var own = RequestOptions()
        own.maxResponseSize = 700
        _ = try await client.send(Request<Data>(path: "/a"))
        _ = try await client.send(Request<Data>(path: "/a", options: own))
        for try await _ in try await client.bytes(for: Request<Data>(path: "/a", options: own)) {}
        for try await _ in try await client.bytes(for: Request<Data>(path: "/a")) {}
        for try await _ in try await client.events(for: Request<Data>(path: "/a", options: own)) {}
        _ = try await client.stream(for: Request<Data>(path: "/a", options: own))
        #expect(seen.current == [5_000, 700, 700, nil, nil, nil])
    }

    @Test("the timeout is the client's, overridable per request")
    func timeout() async throws {
        let (client, stub) = makeClient { $0.timeout = .milliseconds(100) }
        stub.on(.get, "/slow", StubResponse.status(200).delayed(by: .seconds(600)))
        let clock = ContinuousClock()
        let elapsed = await clock.measure {
            await #expect {
                try await client.send(Request<Data>(path: "/slow"))
            } throws: { error in
                if let apiError = error as? APIError, apiError.kind == .timeout, let after = apiError.timeLimit { return after == .milliseconds(100) }
                return false
            }
        }
        #expect(elapsed < .seconds(90), "a hang guard: the stub answers after 600 s")
        let patient = Request<Data>(path: "/slow", options: RequestOptions(timeout: .milliseconds(50)))
        await #expect(throws: APIError.self) { try await client.send(patient) }
    }

    @Test("cancelling the task throws CancellationError")
    func cancellation() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/slow", StubResponse.status(200).delayed(by: .seconds(30)))
        let task = Task { try await client.send(Request<Data>(path: "/slow")) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("transport failures become network errors naming the request")
    func networkError() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/down", .failure(TransportError(.connectionFailed, "refused", requestMayHaveBeenSent: false)))
        await #expect {
            try await client.send(Request<Data>(path: "/down"))
        } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .network, let request = apiError.request, let underlying = apiError.underlyingError else { return false }
            return request.description == "GET https://api.example.com/v2/down" && (underlying as? TransportError)?.kind == .connectionFailed
        }
    }

    @Test("secret query values are redacted in error descriptions")
    func redactedErrors() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/x", .status(500))
        await #expect {
            try await client.send(Request<Data>(path: "/x", query: [.init(name: "api_key", value: "s3cr3t"), .init(name: "page", value: "2")]))
        } throws: { error in
            "\(error)".contains("api_key=<redacted>&page=2") && !"\(error)".contains("s3cr3t")
        }
    }
    @Test("query names the configuration adds are redacted in errors too")
    func configuredSecretQueryNames() async throws {
        let (client, stub) = makeClient { $0.sensitiveQueryNames = ["key"] }
        stub.on(.get, "/geo", .status(403))
        await #expect {
            try await client.send(Request<Data>(path: "/geo", query: [.init(name: "key", value: "AIza-SECRET"), .init(name: "q", value: "x")]))
        } throws: { error in
            "\(error)".contains("key=<redacted>&q=x") && !"\(error)".contains("AIza-SECRET")
        }
    }
    @Test("the client's secret query names are redacted in ValidationMiddleware's errors too")
    func configuredSecretQueryNamesInMiddlewareErrors() async throws {
        let stub = StubTransport()
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com/v2")!)
        configuration.sensitiveQueryNames = ["key"]
        configuration.acceptableStatusCodes = Set(200..<600)
        let client = APIClient(configuration: configuration, transport: stub, middleware: [ValidationMiddleware(statusCodes: 200..<300)])
        stub.on(.get, "/geo", .status(403))
        await #expect {
            try await client.send(Request<Data>(path: "/geo", query: [.init(name: "key", value: "AIza-SECRET")]))
        } throws: { error in
            "\(error)".contains("key=<redacted>") && !"\(error)".contains("AIza-SECRET")
        }
    }

    @Test("the client's secret query names are redacted in every error it builds: a cancelled completion-handler call, a download's, a path that cannot be encoded")
    func configuredSecretQueryNamesEverywhere() async throws {
        let (client, stub) = makeClient { $0.sensitiveQueryNames = ["key"] }
        stub.on(.get, "/slow", StubResponse.text("late").delayed(by: .seconds(60)))
        let request = Request<Data>(path: "/slow", query: [.init(name: "key", value: "AIza-SECRET")])
        let cancelled = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, APIError>, Never>) in
            let handle = client.send(request) { continuation.resume(returning: $0) }
            Task { try? await Task.sleep(for: .milliseconds(50)); handle.cancel() }
        }
        #expect(!"\(cancelled)".contains("AIza-SECRET"))
        // A destination whose directory does not exist: the download fails before any request.
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-missing-\(UUID().uuidString)/file")
        await #expect { try await client.download(request, to: missing) } throws: { !"\($0)".contains("AIza-SECRET") }
        // A path whose interpolated segment is refused ("..") and that carries its own query.
        let segment = ".."
        await #expect { try await client.send(Request<Data>(path: "/u/\(segment)?key=AIza-SECRET")) } throws: { !"\($0)".contains("AIza-SECRET") }
    }
}
