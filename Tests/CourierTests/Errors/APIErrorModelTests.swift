import Courier
import CourierTesting
import Dispatch
import Foundation
import HTTPTypes
import Testing

@Suite("APIError: kinds, named facts, equality")
struct APIErrorModelTests {
    private let summary = RequestSummary(method: "GET", url: "https://api.example.com/v2/users/7")

    @Test("an HTTP error names its status, message, response and body")
    func namedFacts() {
        let error = APIError.httpError(statusCode: 404, message: "No user", response: HTTPResponse(status: .notFound),
                                       body: Data("{}".utf8), request: summary)
        #expect(error.kind == .httpError)
        #expect(error.statusCode == 404)
        #expect(error.message == "No user")
        #expect(error.response?.status == .notFound)
        #expect(error.body == Data("{}".utf8))
        #expect(error.request == summary)
        #expect(error.timeLimit == nil && error.sizeLimit == nil && error.decodedType == nil)
    }

    @Test("equal when kind, status, request and message are equal; bodies are not compared")
    func equality() {
        func http(_ status: Int, _ message: String?, body: String = "") -> APIError {
            .httpError(statusCode: status, message: message, response: HTTPResponse(status: .init(code: status)),
                       body: Data(body.utf8), request: summary)
        }
        #expect(http(404, "gone", body: "a") == http(404, "gone", body: "b"))
        #expect(http(404, "gone") != http(410, "gone"))
        #expect(http(404, "gone") != http(404, "missing"))
        #expect(http(404, nil) != APIError.timeout(request: summary, after: .seconds(1)))
        let other = RequestSummary(method: "GET", url: "https://api.example.com/v2/users/8")
        #expect(APIError.cancelled(request: summary) != APIError.cancelled(request: other))

        // Result<Value, APIError> is Equatable when Value is: what TCA actions need.
        let a: Result<Int, APIError> = .failure(http(500, "down"))
        let b: Result<Int, APIError> = .failure(http(500, "down"))
        #expect(a == b)
    }

    @Test("underlying errors compare by type and description")
    func underlyingEquality() {
        struct Boom: Error, CustomStringConvertible { var description: String }
        struct Bang: Error, CustomStringConvertible { var description: String }
        let one = APIError.network(request: summary, underlying: Boom(description: "x"))
        #expect(one == APIError.network(request: summary, underlying: Boom(description: "x")))
        #expect(one != APIError.network(request: summary, underlying: Boom(description: "y")))
        #expect(one != APIError.network(request: summary, underlying: Bang(description: "x")))
    }

    @Test("a catch clause can name a kind")
    func catchByKind() async {
        let (client, stub) = makeClient { $0.timeout = .milliseconds(50) }
        stub.on(.get, "/slow", StubResponse.status(200).delayed(by: .seconds(600)))   // far from the 50 ms, even on a stalled machine
        var caught = false
        do {
            _ = try await client.send(Request<Data>(path: "/slow"))
        } catch APIError.Kind.timeout {
            caught = true
        } catch {
            Issue.record("expected a timeout, got \(error)")
        }
        #expect(caught)
    }

    @Test("a token provider that cannot supply a token is an authentication error, not 'unknown'")
    func authenticationKind() async throws {
        struct NoSession: Error {}
        let stub = StubTransport()
        stub.on(.get, "/me", .status(200))
        let provider = ClosureTokenProvider(token: { throw NoSession() }, refresh: { _ in throw NoSession() })
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!),
                               transport: stub, middleware: [AuthenticationMiddleware(.bearer(provider))])
        await #expect {
            try await client.send(Request<Data>(path: "/me"))
        } throws: { error in
            guard let error = error as? APIError, error.kind == .authentication else { return false }
            return error.underlyingError is AuthenticationError
                && error.description.hasPrefix("Could not authenticate GET https://api.example.com/me")
        }
        #expect(stub.requests.isEmpty)
    }

    @Test("completion handlers run on the queue the caller names")
    func completionQueue() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/{id}", .json(User(id: 3, name: "C")))
        let queue = DispatchQueue(label: "caller.queue")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "caller")
        let label = await withCheckedContinuation { continuation in
            client.send(GetUser(id: "3"), queue: queue) { _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key))
            }
        }
        #expect(label == "caller")
    }
}
