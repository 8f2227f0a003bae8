// The Courier column of the article "Porting injectable service protocols"
// (PortingInjectableServices.md): every Courier snippet of the article, run against a
// StubTransport or a fake. Keep the two in step.
import Courier
import CourierDependencies
import CourierTesting
import Dependencies
import Foundation
import HTTPTypes
import Testing

/// The fixture the fake answers with.
private let food = [InjectableServicesTests.Food(name: "Pho"), InjectableServicesTests.Food(name: "Jollof")]

@Suite("Porting injectable service protocols")
struct InjectableServicesTests {
    struct Food: Codable, Sendable, Equatable {
        var name: String
    }

    // MARK: Protocol-oriented services with completion handlers

    protocol Gettable<Value>: Sendable {
        associatedtype Value: Sendable

        @discardableResult
        func get(completion: @escaping @Sendable (Result<Value, APIError>) -> Void) -> RequestHandle
    }

    struct FoodService: Gettable {
        let client: APIClient

        @discardableResult
        func get(completion: @escaping @Sendable (Result<[Food], APIError>) -> Void) -> RequestHandle {
            client.send(Request<[Food]>(path: "/foods"), completion: completion)
        }
    }

    @MainActor
    final class FoodViewController {             // a UIViewController in the app
        private(set) var dataSource: [Food] = []
        private(set) var errorMessage: String?

        func getFood(fromService service: some Gettable<[Food]>) {
            service.get { [weak self] result in
                MainActor.assumeIsolated {         // completions arrive on the main queue
                    switch result {
                    case .success(let food): self?.dataSource = food
                    case .failure(let error): self?.errorMessage = error.description
                    }
                }
            }
        }
    }

    final class FakeFoodService: Gettable, @unchecked Sendable {   // used by one test at a time
        var getWasCalled = false
        var result: Result<[Food], APIError> = .success(food)

        func get(completion: @escaping @Sendable (Result<[Food], APIError>) -> Void) -> RequestHandle {
            getWasCalled = true
            completion(result)
            return RequestHandle {}
        }
    }

    // MARK: Injected through swift-dependencies (TCA)

    struct LoginRequest: APIRequest {
        typealias Response = LoginResponse
        let username: String
        let password: String
        var method: HTTPRequest.Method { .post }
        var path: RequestPath { "/auth/login" }
        var body: RequestBody? { .json(["username": username, "password": password]) }
        var options: RequestOptions { RequestOptions(authentication: .none) }
    }

    struct LoginResponse: Codable, Sendable, Equatable {
        let success: Bool
        let message: String?
    }

    struct LoginFeature {
        struct State: Equatable {
            var isLoading = false
            var isLoggedIn = false
            var errorMessage: String?
        }

        enum Action: Equatable {
            case loginButtonTapped(username: String, password: String)
            case loginResponse(Result<LoginResponse, CourierAPIError>)    // Courier's APIError, whatever yours is called
        }

        @Dependency(\.apiClient) var apiClient

        /// The body of the reducer's `.run` effect for `loginButtonTapped`.
        func login(username: String, password: String) async -> Action? {
            do {
                let response = try await apiClient.send(LoginRequest(username: username, password: password))
                return .loginResponse(.success(response))
            } catch let error as CourierAPIError {
                return .loginResponse(.failure(error))
            } catch {
                return nil                             // cancelled: the effect sends nothing
            }
        }

        func reduce(_ state: inout State, _ action: Action) {
            switch action {
            case .loginButtonTapped:
                state.isLoading = true
                state.errorMessage = nil
            case .loginResponse(.success(let response)):
                state.isLoading = false
                state.isLoggedIn = response.success
                state.errorMessage = response.success ? nil : response.message
            case .loginResponse(.failure(let error)):
                state.isLoading = false
                state.errorMessage = error.description
            }
        }
    }

    // MARK: - Snippets

    @MainActor
    @Test("a fake service injected into the view controller")
    func fetchFoodSuccess() {
        let fakeFoodService = FakeFoodService()
        let viewController = FoodViewController()

        viewController.getFood(fromService: fakeFoodService)

        #expect(fakeFoodService.getWasCalled)
        #expect(viewController.dataSource.count == food.count)
        #expect(viewController.dataSource == food)
    }

    @Test("the live service sends through the client and completes with Result<[Food], APIError>")
    func liveService() async throws {
        let stub = StubTransport()
        stub.on(.get, "/foods", .json(food))
        stub.on(.get, "/broken/foods", .status(500))
        let service = FoodService(client: APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://food.example.com")!),
                                                    transport: stub))
        let broken = FoodService(client: APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://food.example.com/broken")!),
                                                   transport: stub))

        let result = await withCheckedContinuation { continuation in service.get { continuation.resume(returning: $0) } }
        let failure = await withCheckedContinuation { continuation in broken.get { continuation.resume(returning: $0) } }

        #expect(try result.get() == food)
        guard case .failure(let error) = failure else { Issue.record("expected a failure"); return }
        #expect(error.statusCode == 500)
    }

    @Test("@Dependency(\\.apiClient) in a TCA feature; Result<_, APIError> in an Equatable action")
    func tcaFeature() async throws {
        let stubs = StubTransport()
        stubs.on(.post, "/auth/login") { request in
            let body = try request.decodedBody([String: String].self)
            return body["password"] == "right"
                ? .json(LoginResponse(success: true, message: nil))
                : .status(401, message: "Wrong password")
        }
        var state = LoginFeature.State()
        let feature = LoginFeature()
        feature.reduce(&state, .loginButtonTapped(username: "ada", password: "wrong"))

        let (failed, failedAgain, succeeded) = await withDependencies {
            $0.apiClient = .unimplemented(stubs: stubs)
        } operation: {
            (await feature.login(username: "ada", password: "wrong"),
             await feature.login(username: "ada", password: "wrong"),
             await feature.login(username: "ada", password: "right"))
        }

        #expect(failed == failedAgain)                   // equal errors: same kind, status, request, message
        guard case .loginResponse(.failure(let error)) = failed else { Issue.record("expected a failure"); return }
        #expect(error.statusCode == 401)
        feature.reduce(&state, try #require(failed))
        #expect(state.errorMessage?.contains("Wrong password") == true)
        #expect(state.isLoading == false)

        #expect(succeeded == .loginResponse(.success(LoginResponse(success: true, message: nil))))
        feature.reduce(&state, try #require(succeeded))
        #expect(state == LoginFeature.State(isLoading: false, isLoggedIn: true, errorMessage: nil))
    }
}
