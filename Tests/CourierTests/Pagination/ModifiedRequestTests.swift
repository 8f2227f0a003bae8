import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// What uploads, pages and event streams keep of the caller's request when they change a part
/// of it: its name in logs, metrics and traces, and the redaction of its URL in errors.
@Suite("Requests changed by uploads, pages and event streams")
struct ModifiedRequestTests {
    private struct ListUsers: APIRequest {
        typealias Response = Data
        var path: RequestPath { "/users" }
    }

    @Test("upload, pages and events name the operation after the caller's request type, as send does")
    func operationNameIsTheRequestType() async throws {
        let names = Locked<[String]>([])
        let spy = MiddlewareTestSpy { request, body, context, next in
            names.withLock { $0.append(context.operationName) }
            return try await next(request, body, context)
        }
        let stub = StubTransport()
        stub.on(nil, "/users", .text("x"))
        let client = APIClient(configuration: APIConfiguration(baseURL: MiddlewareFixtures.baseURL), transport: stub, middleware: [spy])
        _ = try await client.send(ListUsers())
        _ = try await client.upload(ListUsers()) { _ in }
        _ = try await client.pages(ListUsers(), followingLink: "next").collect()
        for try await _ in try await client.events(for: ListUsers()) {}
        #expect(names.current == Array(repeating: "ListUsers", count: 4))
    }

    @Test("an upload whose body cannot be encoded names the request with its secret query values redacted, as send does")
    func uploadEncodingErrorIsRedacted() async throws {
        let stub = StubTransport()
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.sensitiveQueryNames = ["sessionkey"]
        let client = APIClient(configuration: configuration, transport: stub)
        let request = Request<Void>(method: .put, path: "https://bucket.example.net/k?X-Amz-Signature=SIG-SECRET&sessionkey=SK-SECRET",
                                    body: .json(["ratio": Double.nan]))
        let error = await #expect(throws: APIError.self) { try await client.upload(request) { _ in } }
        #expect(error?.kind == .encodingFailed)
        let text = String(describing: error)
        #expect(!text.contains("SIG-SECRET") && !text.contains("SK-SECRET"))
        #expect(stub.requests.isEmpty)
    }
}
