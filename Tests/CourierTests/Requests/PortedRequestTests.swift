import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Requests written the way other clients' documents write them must be sent as written or
/// fail loudly — never have a property silently ignored.
@Suite("Requests ported from other clients")
struct PortedRequestTests {
    /// An app's own method type, as protocol-request tutorials declare it.
    enum HTTPMethod: String {
        case get = "GET", post = "POST", delete = "DELETE"
    }

    /// The protocol-request style: its own method enum, string-keyed optional headers, a
    /// `queryItems` list and a `Data` body.
    struct CreateNote: APIRequest {
        typealias Response = Data
        let title: String
        var path: RequestPath { "/notes" }
        var method: HTTPMethod { .post }
        var headers: [String: String]? { ["X-Client": "notes-app", "Content-Type": "application/json"] }
        var queryItems: [URLQueryItem]? { [URLQueryItem(name: "draft", value: "true")] }
        var body: Data? { Data(#"{"title":"\#(title)"}"#.utf8) }
    }

    @Test("method, headers, queryItems and body declared in another client's spelling are all sent")
    func portedRequestIsSent() async throws {
        let (client, stub) = makeClient()
        stub.on(.post, "/notes", .status(201))
        _ = try await client.send(CreateNote(title: "hi"))
        let sent = try #require(stub.requests.first)
        #expect(sent.request.method == .post)
        #expect(sent.target == "/v2/notes?draft=true")
        #expect(sent.headers[HTTPField.Name("X-Client")!] == "notes-app")
        #expect(sent.headers[.contentType] == "application/json")
        #expect(sent.bodyText == #"{"title":"hi"}"#)
    }

    /// The layered-client style (`APIRequestProtocol`): stored `includeBaseParameters`,
    /// `queryParameters` and `timeout` beside the method and headers.
    struct ConfigRequest: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/client/config" }
        let method: HTTPMethod = .get
        var includeBaseParameters = false
        let queryParameters: [String: String]? = ["type": "1", "lang": "zh"]
        let headers: [String: String]? = nil
        var timeout: TimeInterval = 30.0
    }

    /// A client over a stub answering `/client/config`, with `appVersion=1.0` as a base
    /// parameter, a middleware that records each request's timeout, then `middleware`.
    private func configClient(_ middleware: [any Middleware] = []) -> (APIClient, StubTransport, Locked<[Duration]>) {
        let timeouts = Locked<[Duration]>([])
        let stub = StubTransport()
        stub.on(.get, "/client/config", .status(200))
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com/v2")!)
        configuration.baseParameters = [URLQueryItem(name: "appVersion", value: "1.0")]
        let spy = MiddlewareTestSpy { request, body, context, next in
            timeouts.withLock { $0.append(context.timeout) }
            return try await next(request, body, context)
        }
        return (APIClient(configuration: configuration, transport: stub, middleware: [spy] + middleware), stub, timeouts)
    }

    @Test("queryParameters, includeBaseParameters and timeout declared in that spelling are honoured, not ignored")
    func layeredClientProperties() async throws {
        let (client, stub, timeouts) = configClient()
        _ = try await client.send(ConfigRequest())
        var included = ConfigRequest()
        included.includeBaseParameters = true
        _ = try await client.send(included)

        #expect(stub.requests.map(\.target) == ["/v2/client/config?lang=zh&type=1", "/v2/client/config?lang=zh&type=1&appVersion=1.0"])
        #expect(timeouts.withLock { $0 } == [.seconds(30), .seconds(30)])
    }

    @Test("that spelling reaches every way of sending: pagination (which copies the request), BaseParametersMiddleware")
    func layeredClientPropertiesEverywhere() async throws {
        let (client, stub, timeouts) = configClient([BaseParametersMiddleware([URLQueryItem(name: "deviceId", value: "d1")])])
        for try await _ in client.pages(ConfigRequest()) {}
        _ = try await client.send(ConfigRequest())

        #expect(stub.requests.map(\.target) == ["/v2/client/config?lang=zh&type=1", "/v2/client/config?lang=zh&type=1"])
        #expect(timeouts.withLock { $0 } == [.seconds(30), .seconds(30)])
    }

    @Test("a timeout in that spelling too large for Duration is the longest wait, not a crash", arguments: [1e21, TimeInterval.greatestFiniteMagnitude])
    func hugeTimeout(_ seconds: TimeInterval) async throws {
        let (client, _, timeouts) = configClient()
        var request = ConfigRequest()
        request.timeout = seconds
        _ = try await client.send(request)
        #expect(timeouts.withLock { $0 } == [Duration.longestWait])
    }

    @Test("a timeout in that spelling that is not a positive number of seconds fails the request, naming it", arguments: [0, -1, TimeInterval.nan])
    func unusableTimeout(_ seconds: TimeInterval) async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/client/config", .status(200))
        var request = ConfigRequest()
        request.timeout = seconds
        let error = await #expect(throws: APIError.self) { _ = try await client.send(request) }
        #expect(error?.kind == .encodingFailed)
        #expect(error.map { "\($0)" }?.contains("timeout") == true)
        #expect(stub.requests.isEmpty)
    }

    @Test("a base parameter the request already sends is not sent again: the request's own value wins")
    func baseParameterNotDuplicated() async throws {
        let (client, stub) = makeClient { $0.baseParameters = [URLQueryItem(name: "lang", value: "en"), URLQueryItem(name: "v", value: "2")] }
        stub.on(.get, "/x", .status(200))
        _ = try await client.send(Request<Data>(path: "/x", query: [URLQueryItem(name: "lang", value: "zh")]))
        _ = try await client.send(Request<Data>(path: "/x"))
        _ = try await client.send(Request<Data>(path: "/x?lang=fr"))
        #expect(stub.requests.map(\.target) == ["/v2/x?lang=zh&v=2", "/v2/x?lang=en&v=2", "/v2/x?lang=fr&v=2"])
    }

    @Test("base parameters: names compared decoded, a nil-valued one left out whether or not the request has a query")
    func baseParameterEdges() async throws {
        let (client, stub) = makeClient {
            $0.baseParameters = [URLQueryItem(name: "debug", value: nil), URLQueryItem(name: "$format", value: "xml"), URLQueryItem(name: "v", value: "2")]
        }
        stub.on(.get, "/x", .status(200))
        _ = try await client.send(Request<Data>(path: "/x?$format=json"))
        _ = try await client.send(Request<Data>(path: "/x", query: [URLQueryItem(name: "q", value: "a")]))
        _ = try await client.send(Request<Data>(path: "/x"))
        #expect(stub.requests.map(\.target) == ["/v2/x?$format=json&v=2", "/v2/x?q=a&%24format=xml&v=2", "/v2/x?%24format=xml&v=2"])
    }

    struct NilEverything: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/ping" }
        var method: HTTPMethod { .get }
        var headers: [String: String]? { nil }
        var body: Data? { nil }
        var queryItems: [URLQueryItem]? { nil }
    }

    @Test("nil headers, body and queryItems in that spelling send nothing extra")
    func nilSpelling() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/ping", .status(200))
        _ = try await client.send(NilEverything())
        let sent = try #require(stub.requests.first)
        #expect(sent.target == "/v2/ping")
        #expect(sent.body.isEmpty)
    }

    struct CountedHeaders: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/x" }
        var headers: [String: Int] { ["X-Count": 1] }
    }

    struct PaymentMethodRequest: APIRequest {
        enum PaymentMethod: String { case card }
        typealias Response = Data
        var path: RequestPath { "/pay" }
        var method: PaymentMethod { .card }
    }

    struct Note: Encodable { var title: String }

    struct EncodableBody: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var method: HTTPRequest.Method { .post }
        var body: Note? { Note(title: "x") }
    }

    @Test("a method, headers or body of a type Courier cannot send fails the request, naming it")
    func unsendableTypesFailLoudly() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        await #expect {
            try await client.send(CountedHeaders())
        } throws: { error in
            guard let error = error as? APIError, error.kind == .encodingFailed,
                  let declaration = error.underlyingError as? RequestDeclarationError else { return false }
            return declaration.property == "headers" && declaration.description.contains("Dictionary<String, Int>")
        }
        await #expect {
            try await client.send(PaymentMethodRequest())
        } throws: { error in
            ((error as? APIError)?.underlyingError as? RequestDeclarationError)?.property == "method"
        }
        await #expect {
            try await client.send(EncodableBody())
        } throws: { error in
            ((error as? APIError)?.underlyingError as? RequestDeclarationError)?.property == "body"
        }
        #expect(stub.requests.isEmpty)
    }

    /// `body`, `queryItems` and `queryParameters` declared without the optional the protocol's
    /// defaults have: each was once a property of its own beside the protocol's, and the request
    /// went out without it.
    struct NonOptionalProperties: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var method: HTTPRequest.Method { .post }
        var body: RequestBody { .json(["title": "hi"]) }
        var queryItems: [URLQueryItem] { [URLQueryItem(name: "draft", value: "true")] }
        var queryParameters: [String: String] { ["lang": "zh"] }
    }

    struct NonOptionalData: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var method: HTTPRequest.Method { .put }
        var body: Data { Data("raw".utf8) }
    }

    @Test("body, queryItems and queryParameters declared without an optional are sent, not ignored")
    func nonOptionalPropertiesAreSent() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        _ = try await client.send(NonOptionalProperties())
        _ = try await client.send(NonOptionalData())
        try #require(stub.requests.count == 2)
        #expect(stub.requests[0].target == "/v2/notes?draft=true&lang=zh")
        #expect(stub.requests[0].bodyText == #"{"title":"hi"}"#)
        #expect(stub.requests[0].headers[.contentType] == "application/json")
        #expect(stub.requests[1].bodyText == "raw")
    }

    /// Optionals nested in optionals, empty and not.
    struct NestedOptionals: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var method: HTTPRequest.Method { .post }
        var body: Data?? { .some(Data("nested".utf8)) }
        var queryItems: [URLQueryItem]?? { .some([URLQueryItem(name: "a", value: "1")]) }
        var queryParameters: [String: String]?? { .some(nil) }
        var headers: [String: String]?? { .some(nil) }
    }

    struct EmptyNestedBody: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var body: RequestBody?? { .some(nil) }
    }

    /// A wrapper that forwards its base's properties, one of them with an optional of its own.
    struct Wrapper<Base: APIRequest>: APIRequest {
        typealias Response = Base.Response
        let base: Base
        var path: Base.Path { base.path }
        var queryItems: Base.QueryItems? { base.queryItems }
        func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Base.Response {
            try base.decode(response, body: body, context: context)
        }
    }

    @Test("optionals nested in optionals are looked through, for body, queryItems, queryParameters and headers")
    func nestedOptionals() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        _ = try await client.send(NestedOptionals())
        _ = try await client.send(EmptyNestedBody())
        _ = try await client.send(Wrapper(base: GetUser(id: "7")))
        try #require(stub.requests.count == 3)
        #expect(stub.requests[0].target == "/v2/notes?a=1")
        #expect(stub.requests[0].bodyText == "nested")
        #expect(stub.requests[1].bodyText == "")
        #expect(stub.requests[2].target == "/v2/users/7/profile")
    }

    /// Seed 003's login request: its body as a `bodyParameters` dictionary (made `Sendable`).
    struct LoginRequest: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/auth/login" }
        var method: HTTPRequest.Method { .post }
        let bodyParameters: [String: any Sendable]?
        init(username: String, password: String) {
            bodyParameters = ["username": username, "password": password, "remember": true, "attempt": 1]
        }
    }

    struct StringBodyParameters: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var method: HTTPRequest.Method { .post }
        var bodyParameters: [String: String]? { ["title": "a"] }
    }

    struct BodyAndBodyParameters: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var method: HTTPRequest.Method { .post }
        var body: RequestBody? { .json(["title": "a"]) }
        var bodyParameters: [String: String]? { ["title": "b"] }
    }

    struct UnencodableBodyParameters: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var method: HTTPRequest.Method { .post }
        var bodyParameters: [String: any Sendable]? { ["when": Date()] }
    }

    @Test("a bodyParameters dictionary (the layered-client spelling) is sent as the JSON body, not dropped; with a body too, or a value JSON cannot hold, the request fails naming it")
    func bodyParametersAreSent() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        _ = try await client.send(LoginRequest(username: "ada", password: "pw"))
        _ = try await client.send(StringBodyParameters())
        try #require(stub.requests.count == 2)
        #expect(stub.requests[0].bodyText == #"{"attempt":1,"password":"pw","remember":true,"username":"ada"}"#)
        #expect(stub.requests[0].headers[.contentType] == "application/json")
        #expect(stub.requests[1].bodyText == #"{"title":"a"}"#)
        for request in [BodyAndBodyParameters() as any APIRequest, UnencodableBodyParameters()] {
            await #expect {
                _ = try await client.send(request)
            } throws: { error in
                ((error as? APIError)?.underlyingError as? RequestDeclarationError)?.property == "bodyParameters"
            }
        }
        #expect(stub.requests.count == 2)
    }

    /// Types Courier cannot send, without an optional.
    struct UnsendableNonOptional: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var queryItems: [String] { ["draft"] }
    }

    struct UnsendableParameters: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/notes" }
        var queryParameters: [String: Int] { ["page": 2] }
    }

    @Test("queryItems or queryParameters of a type Courier cannot send fail the request, naming the property")
    func unsendableQueriesFailLoudly() async throws {
        let (client, stub) = makeClient()
        stub.on(nil, "/**", .status(200))
        await #expect {
            try await client.send(UnsendableNonOptional())
        } throws: { error in
            ((error as? APIError)?.underlyingError as? RequestDeclarationError)?.property == "queryItems"
        }
        await #expect {
            try await client.send(UnsendableParameters())
        } throws: { error in
            ((error as? APIError)?.underlyingError as? RequestDeclarationError)?.property == "queryParameters"
        }
        #expect(stub.requests.isEmpty)
    }
}
