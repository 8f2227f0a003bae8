// The Courier column of the article "Porting Combine request pipelines"
// (PortingCombinePipelines.md): every Courier snippet of the article, run against a
// StubTransport. Keep the two in step.
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

@Suite("Porting Combine request pipelines")
final class CombinePipelinesTests: @unchecked Sendable {  // test scaffolding: state guarded by `lock`, `cancellable` used by one test at a time
    struct User: Codable, Sendable, Equatable {
        var id: Int
        var name: String
        var username: String
        var email: String
    }

    static let users = [User(id: 1, name: "Leanne Graham", username: "Bret", email: "Sincere@april.biz")]
    let usersJSON = try! JSONEncoder().encode(CombinePipelinesTests.users)

    // Test scaffolding: what the pipelines hand to the app, and a way to wait for it.
    private let lock = NSLock()
    private var events: [String] = []
    private func record(_ event: String) { lock.lock(); events.append(event); lock.unlock() }
    private func recorded(count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(120)   // a hang guard (loaded machines stall tests for 20 s)
        while true {
            let snapshot = { self.lock.lock(); defer { self.lock.unlock() }; return self.events }()
            if snapshot.count >= count || ContinuousClock.now > deadline { return snapshot }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
    func show(_ users: [User]) { record("users \(users.map(\.id))") }
    func show(_ data: Data) { record("bytes \(data.count)") }
    func showError(_ error: APIError) { record("error \(error.statusCode.map(String.init) ?? "-"): \(error.description)") }

    let transport = StubTransport()
    var cancellable: AnyCancellable?

    // MARK: - Snippets

    @Test("an APIBase subclass and a Request subclass → a client and a publisher")
    func clientAndPublisher() async throws {
        transport.on(.get, "/users", .json(data: usersJSON))

        let client = APIClient(
            configuration: APIConfiguration(baseURL: URL(string: "https://jsonplaceholder.typicode.com")!),
            transport: transport,
            middleware: [ValidationMiddleware(statusCodes: 200..<300, contentTypes: ["application/json"])]
        )

        cancellable = client.publisher(for: Request<[User]>(path: "/users"))
            .sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { self.showError(error) }
            }, receiveValue: { users in
                self.show(users)
            })

        #expect(try await recorded(count: 1) == ["users [1]"])
        #expect(transport.requests.last?.url == "https://jsonplaceholder.typicode.com/users")
        #expect(transport.requests.last?.headers[.accept] == "application/json")
    }

    @Test("the validation middleware fails every request with another content type")
    func clientWideValidation() async throws {
        transport.on(.get, "/users", .data(Data("<html/>".utf8), contentType: "text/html"))
        let client = APIClient(
            configuration: APIConfiguration(baseURL: URL(string: "https://jsonplaceholder.typicode.com")!),
            transport: transport,
            middleware: [ValidationMiddleware(statusCodes: 200..<300, contentTypes: ["application/json"])]
        )

        cancellable = client.publisher(for: Request<[User]>(path: "/users"))
            .sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { self.showError(error) }
            }, receiveValue: { users in
                self.show(users)
            })

        let events = try await recorded(count: 1)
        #expect(events.count == 1)
        #expect(events.first?.hasPrefix("error -:") == true)
        #expect(events.first?.contains("text/html") == true)
    }

    @Test("sendRequest + validateStatusCode(in:) + hasContentType + decode → the same operators")
    func operatorPipeline() async throws {
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://jsonplaceholder.typicode.com")!),
                               transport: transport)
        let answers = [StubResponse.json(data: usersJSON, headers: [.contentType: "application/json; charset=utf-8"]), .status(500)]

        for (index, answer) in answers.enumerated() {
            transport.reset()
            transport.on(.get, "/users", answer)

            cancellable = client.dataPublisher(for: Request<Data>(path: "/users"))
                .validateStatusCode(in: 200..<300)
                .hasContentType("application/json")
                .decode([User].self)
                .sink(receiveCompletion: { completion in
                    if case .failure(let error) = completion { self.showError(error) }
                }, receiveValue: { users in
                    self.show(users)
                })

            _ = try await recorded(count: index + 1)
        }

        let events = try await recorded(count: 2)
        #expect(events.first == "users [1]")
        #expect(events.last?.hasPrefix("error 500:") == true)
    }

    @Test(".map { $0.data } → .data(); any sequence of codes")
    func rawData() async throws {
        transport.on(.get, "/users", .json(data: usersJSON, status: 203))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://jsonplaceholder.typicode.com")!),
                               transport: transport)

        cancellable = client.dataPublisher(for: Request<Data>(path: "/users"))
            .validateStatusCode(in: [200, 203])
            .data()
            .sink(receiveCompletion: { _ in }, receiveValue: { data in
                self.show(data)
            })

        #expect(try await recorded(count: 1) == ["bytes \(usersJSON.count)"])
    }

    @Test("stubJSONResponse / stubResponse / stub(error:) → StubTransport")
    func stubs() async throws {
        let stub = StubTransport()
        stub.on(.get, "/users", .json(data: usersJSON))                      // stubJSONResponse(statusCode: 200, …)
        stub.on(.get, "/missing", .status(404))                                   // stubResponse(statusCode: 404, …)
        stub.on(.get, "/offline", .failure(TransportError(.connectionFailed, "not connected to the internet")))   // stub(error:)
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://jsonplaceholder.typicode.com")!),
                               transport: stub)

        for path in ["/users", "/missing", "/offline"] {
            cancellable = client.dataPublisher(for: Request<Data>(path: path))
                .validateStatusCode(in: 200..<300)
                .decode([User].self)
                .sink(receiveCompletion: { completion in
                    if case .failure(let error) = completion { self.showError(error) }
                }, receiveValue: { users in
                    self.show(users)
                })
            _ = try await recorded(count: ["/users", "/missing", "/offline"].firstIndex(of: path)! + 1)
        }

        let events = try await recorded(count: 3)
        #expect(events.count == 3)
        #expect(events[0] == "users [1]")
        #expect(events[1].hasPrefix("error 404:"))
        #expect(events[2].hasPrefix("error -:"))
        #expect(stub.requests.count == 3)
    }
}
