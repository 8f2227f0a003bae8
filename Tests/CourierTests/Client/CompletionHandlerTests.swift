import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Completion-handler API")
struct CompletionHandlerTests {
    @Test("the completion receives the decoded value")
    func success() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/{id}", .json(User(id: 3, name: "C")))
        let result = await withCheckedContinuation { continuation in
            client.send(GetUser(id: "3")) { continuation.resume(returning: $0) }
        }
        #expect(try result.get() == User(id: 3, name: "C"))
    }

    @Test("failures arrive as APIError")
    func failure() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/{id}", .status(500))
        let result = await withCheckedContinuation { continuation in
            client.send(GetUser(id: "3")) { continuation.resume(returning: $0) }
        }
        #expect(throws: APIError.self) { try result.get() }
    }

    @Test("cancelling the handle delivers .cancelled")
    func cancel() async throws {
        let (client, stub) = makeClient()
        stub.on(.get, "/users/{id}", StubResponse.json(User(id: 3, name: "C")).delayed(by: .seconds(30)))
        let result = await withCheckedContinuation { continuation in
            let handle = client.send(GetUser(id: "3")) { continuation.resume(returning: $0) }
            handle.cancel()
        }
        guard case .failure(let error) = result, error.kind == .cancelled else {
            Issue.record("expected .cancelled, got \(result)"); return
        }
        #expect(error.request?.url == "https://api.example.com/v2/users/3")
    }
}
