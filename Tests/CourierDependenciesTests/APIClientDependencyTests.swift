import Courier
import CourierDependencies
import CourierTesting
import Dependencies
import Foundation
import Testing

struct Todo: Codable, Sendable, Equatable {
    var id: Int
    var title: String
}

/// A TCA-style feature: state, actions, and a reducer that reaches the API through the dependency.
struct TodosFeature {
    struct State: Equatable {
        var todos: [Todo] = []
        var error: String?
    }

    enum Action {
        case load
        case add(String)
    }

    @Dependency(\.apiClient) var apiClient

    func reduce(_ state: inout State, _ action: Action) async {
        do {
            switch action {
            case .load:
                state.todos = try await apiClient.send(Request<[Todo]>(path: "/todos"))
            case .add(let title):
                let created = try await apiClient.send(Request<Todo>(method: .post, path: "/todos", body: .json(["title": title])))
                state.todos.append(created)
            }
            state.error = nil
        } catch {
            state.error = "\(error)"
        }
    }
}

@Suite("@Dependency(\\.apiClient)")
struct APIClientDependencyTests {
    @Test("a feature talks to the stubs it was given")
    func stubbed() async throws {
        let stubs = StubTransport()
        stubs.on(.get, "/todos", .json([Todo(id: 1, title: "Write docs")]))
        stubs.on(.post, "/todos", .json(Todo(id: 2, title: "Ship"), status: 201))
        var state = TodosFeature.State()
        await withDependencies {
            $0.apiClient = .unimplemented(stubs: stubs)
        } operation: {
            let feature = TodosFeature()
            await feature.reduce(&state, .load)
            await feature.reduce(&state, .add("Ship"))
        }
        #expect(state == TodosFeature.State(todos: [Todo(id: 1, title: "Write docs"), Todo(id: 2, title: "Ship")]))
        #expect(try stubs.requests.last?.decodedBody([String: String].self) == ["title": "Ship"])
    }

    @Test("a request that no stub answers is reported as a failure, and fails")
    func unstubbedIsReported() async {
        var state = TodosFeature.State()
        await withKnownIssue {
            await withDependencies {
                $0.apiClient = .unimplemented()
            } operation: {
                await TodosFeature().reduce(&state, .load)
            }
        } matching: { issue in
            issue.description.contains("GET https://api.example.com/todos")
        }
        #expect(state.error?.contains("no stub matches") == true)
    }

    @Test("the default test value reports every request")
    func defaultTestValue() async {
        var state = TodosFeature.State()
        await withKnownIssue {
            await TodosFeature().reduce(&state, .add("x"))
        }
        #expect(state.error != nil)
    }

    @Test("the live value, until configured, says how to configure it")
    func unconfiguredLiveValue() async {
        var state = TodosFeature.State()
        await withKnownIssue {
            await withDependencies {
                $0.context = .live
            } operation: {
                await TodosFeature().reduce(&state, .load)
            }
        } matching: { issue in
            issue.description.contains("prepareDependencies")
        }
        #expect(state.error?.contains("no live value") == true)
    }

    @Test("a configured client is used as the live value")
    func configured() async throws {
        let stubs = StubTransport()
        stubs.on(.get, "/todos", .json([Todo(id: 9, title: "Live")]))
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://todo.example")!), transport: stubs)
        var state = TodosFeature.State()
        await withDependencies {
            $0.context = .live
            $0.apiClient = client
        } operation: {
            await TodosFeature().reduce(&state, .load)
        }
        #expect(state.todos == [Todo(id: 9, title: "Live")])
    }
}
