import Courier
import CourierCombine
import CourierTesting
import Foundation
import HTTPTypes
import Testing
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

struct Post: Codable, Sendable, Equatable {
    var id: Int
    var title: String
}

/// Collects what a publisher emits, and lets the test await its completion.
final class Collector<Output, Failure: Error>: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var values: [Output] = []
    private var completion: Subscribers.Completion<Failure>?
    private var cancellable: AnyCancellable?
    private var continuation: CheckedContinuation<Void, Never>?

    init(_ publisher: AnyPublisher<Output, Failure>) {
        let cancellable = publisher.sink(
            receiveCompletion: { [self] completion in
                lock.lock()
                self.completion = completion
                let continuation = self.continuation
                self.continuation = nil
                lock.unlock()
                continuation?.resume()
            },
            receiveValue: { [self] value in lock.lock(); values.append(value); lock.unlock() }
        )
        lock.lock(); self.cancellable = cancellable; lock.unlock()
    }

    /// Waits for completion and returns the values and the completion.
    func finish() async -> ([Output], Subscribers.Completion<Failure>) {
        await withCheckedContinuation { continuation in
            lock.lock()
            if completion != nil { lock.unlock(); continuation.resume(); return }
            self.continuation = continuation
            lock.unlock()
        }
        return snapshot()
    }

    private func snapshot() -> ([Output], Subscribers.Completion<Failure>) {
        lock.lock(); defer { lock.unlock() }
        return (values, completion!)
    }

    func cancel() { lock.lock(); let c = cancellable; lock.unlock(); c?.cancel() }
    var received: [Output] { lock.lock(); defer { lock.unlock() }; return values }
}

func failure<F>(_ completion: Subscribers.Completion<F>) -> F? {
    if case .failure(let error) = completion { return error }
    return nil
}

func makeClient() -> (APIClient, StubTransport) {
    let stub = StubTransport()
    return (APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub), stub)
}

@Suite("Combine publishers")
struct PublisherTests {
    @Test("publisher(for:) publishes the decoded value and finishes")
    func publishesValue() async {
        let (client, stub) = makeClient()
        stub.on(.get, "/posts/1", .json(Post(id: 1, title: "Hi")))
        let (values, completion) = await Collector(client.publisher(for: Request<Post>(path: "/posts/1"))).finish()
        #expect(values == [Post(id: 1, title: "Hi")])
        #expect(failure(completion) == nil)
    }

    @Test("publisher(for:) fails with APIError")
    func publishesError() async {
        let (client, stub) = makeClient()
        stub.on(.get, "/posts/2", .status(404, message: "nope"))
        let (values, completion) = await Collector(client.publisher(for: Request<Post>(path: "/posts/2"))).finish()
        #expect(values.isEmpty)
        #expect(failure(completion)?.statusCode == 404)
    }

    @Test("a CancellationError from below (a middleware, a stub) while the subscriber still waits completes with .cancelled, never silence", .timeLimit(.minutes(1)))
    func cancellationFromBelowCompletes() async {
        let (client, stub) = makeClient()
        stub.on(.get, "/posts/3") { _ in throw CancellationError() }
        let (values, completion) = await Collector(client.publisher(for: Request<Post>(path: "/posts/3"))).finish()
        #expect(values.isEmpty)
        #expect(failure(completion)?.kind == .cancelled)
    }

    @Test("nothing is sent until there is a subscriber")
    func lazy() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/posts/1", .json(Post(id: 1, title: "Hi")))
        let publisher = client.publisher(for: Request<Post>(path: "/posts/1"))
        try await Task.sleep(for: .milliseconds(20))
        #expect(stub.requests.isEmpty)
        _ = await Collector(publisher).finish()
        #expect(stub.requests.count == 1)
    }

    @Test("cancelling the subscription cancels the exchange and publishes nothing")
    func cancellation() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/slow", StubResponse.json(Post(id: 1, title: "late")).delayed(by: .seconds(600)))
        let collector = Collector(client.publisher(for: Request<Post>(path: "/slow")))
        // Cancel once the request has reached the transport, then wait for the transport to see
        // the cancellation: a subscription that stopped listening but left the exchange running
        // would leave the stub waiting out its 600 s.
        let clock = ContinuousClock()
        let start = clock.now
        while stub.requests.isEmpty, clock.now - start < .seconds(60) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(stub.requests.count == 1)
        collector.cancel()
        while stub.cancelledRequests.isEmpty, clock.now - start < .seconds(60) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(stub.cancelledRequests.map(\.path) == ["/slow"])
        #expect(collector.received.isEmpty)
    }

    @Test("validateStatusCode(in:), hasContentType(_:) and decode, as in a Combine request pipeline")
    func combinePipeline() async {
        let (client, stub) = makeClient()
        stub.on(.get, "/posts", .json([Post(id: 1, title: "A"), Post(id: 2, title: "B")]))
        let publisher = client.dataPublisher(for: Request<Data>(path: "/posts"))
            .validateStatusCode(in: 200..<300)
            .hasContentType("application/json")
            .decode([Post].self)
        let (values, completion) = await Collector(publisher).finish()
        #expect(values == [[Post(id: 1, title: "A"), Post(id: 2, title: "B")]])
        #expect(failure(completion) == nil)
    }

    @Test("decode without a decoder uses the client's: with useSnakeCaseKeys(), optional snake_case fields are filled, not nil")
    func decodeUsesTheClientsDecoder() async {
        struct Profile: Decodable, Equatable, Sendable {
            var userName: String?
            var avatarPath: String?
        }
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.useSnakeCaseKeys()
        let stub = StubTransport()
        stub.on(.get, "/me", .json(#"{"user_name": "ada", "avatar_path": "/a/b.png"}"#))
        let client = APIClient(configuration: configuration, transport: stub)
        let seedWay = client.dataPublisher(for: Request<Data>(path: "/me")).validateStatusCode(in: 200..<300).decode(Profile.self)
        let (values, completion) = await Collector(seedWay).finish()
        #expect(failure(completion) == nil)
        #expect(values == [Profile(userName: "ada", avatarPath: "/a/b.png")])
        // A decoder passed explicitly still wins.
        let explicit = client.dataPublisher(for: Request<Data>(path: "/me")).decode(Profile.self, decoder: JSONDecoder())
        let (plain, _) = await Collector(explicit).finish()
        #expect(plain == [Profile(userName: nil, avatarPath: nil)])
    }

    @Test("dataPublisher fails with encodingFailed for a request whose header was refused while it was built, as send does; nothing is sent")
    func dataPublisherKeepsTheDeferredError() async throws {
        struct BuiltWithAnError: APIRequest {   // as a macro-built request records one
            typealias Response = Data
            var path: RequestPath { "/posts" }
            var options: RequestOptions {
                var options = RequestOptions()
                options.deferredEncodingError = CocoaError(.coderInvalidValue)
                return options
            }
            func decode(_ response: HTTPResponse, body: Data, context: DecodingContext) throws -> Data { body }
        }
        let (client, stub) = makeClient()
        stub.on(.get, "/posts", .json("[]"))
        let request = BuiltWithAnError()
        let (_, completion) = await Collector(client.dataPublisher(for: request)).finish()
        let error = try #require(failure(completion))
        #expect(error.kind == .encodingFailed)
        #expect(stub.requests.isEmpty)
    }

    @Test("validateStatusCode(in:) accepts any sequence and fails outside it")
    func statusValidation() async {
        let (client, stub) = makeClient()
        stub.on(.get, "/teapot", .status(418))
        let data = client.dataPublisher(for: Request<Data>(path: "/teapot"))
        let (_, rangeCompletion) = await Collector(data.validateStatusCode(in: 200..<300)).finish()
        #expect(failure(rangeCompletion)?.statusCode == 418)
        let (values, setCompletion) = await Collector(data.validateStatusCode(in: Set([200, 418]))).finish()
        #expect(values.map(\.response.status.code) == [418])
        #expect(failure(setCompletion) == nil)
        let (_, arrayCompletion) = await Collector(data.validateStatusCode(in: [200, 201])).finish()
        #expect(failure(arrayCompletion)?.statusCode == 418)
    }

    @Test("hasContentType(_:) matches with or without parameters")
    func contentType() async {
        let (client, stub) = makeClient()
        stub.on(.get, "/text", .text("hello"))   // text/plain; charset=utf-8
        let data = client.dataPublisher(for: Request<Data>(path: "/text"))
        let (values, ok) = await Collector(data.hasContentType("text/plain").data()).finish()
        #expect(values == [Data("hello".utf8)])
        #expect(failure(ok) == nil)
        let (_, exact) = await Collector(data.hasContentType("text/plain; charset=utf-8")).finish()
        #expect(failure(exact) == nil)
        let (_, mismatch) = await Collector(data.hasContentType("application/json")).finish()
        guard let apiError = failure(mismatch), apiError.kind == .unexpectedContentType, case let expected = apiError.expectedContentTypes, case let received = apiError.receivedContentType else {
            Issue.record("expected unexpectedContentType, got \(mismatch)")
            return
        }
        #expect(expected == ["application/json"])
        #expect(received == "text/plain; charset=utf-8")
    }

    @Test("decode fails with decodingFailed, carrying the body")
    func decodeFailure() async {
        let (client, stub) = makeClient()
        stub.on(.get, "/bad", .json(#"{"id": "x"}"#))
        let (_, completion) = await Collector(client.dataPublisher(for: Request<Data>(path: "/bad")).decode(Post.self)).finish()
        guard let apiError = failure(completion), apiError.kind == .decodingFailed, let type = apiError.decodedType, case let body = apiError.body else {
            Issue.record("expected decodingFailed, got \(completion)")
            return
        }
        #expect(type == "Post")
        #expect(String(decoding: body, as: UTF8.self) == #"{"id": "x"}"#)
    }
}
