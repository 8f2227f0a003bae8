import Courier
import CourierTestServer
import Foundation
import Testing

/// Issue 12, items 14 and 16, over both transports against the real test server: inputs that
/// crashed the process or reached the wire malformed now end in a clear error or a right request.
@Suite("Inputs that crashed or misfired")
struct NoCrashIntegrationTests {
    @Test("base parameters merge into a form body with a lone '=' pair", arguments: TransportKind.allCases)
    func loneEqualsPair(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport(),
                                   middleware: [BaseParametersMiddleware([URLQueryItem(name: "os", value: "linux")], placement: .body)])
            let echo = try await client.send(Request<Echo>(method: .post, path: "/echo",
                                                           body: .data(Data("name=Ada&=&lang=en".utf8), contentType: "application/x-www-form-urlencoded")))
            #expect(echo.body == "name=Ada&=&lang=en&os=linux")
        }
    }

    @Test("an empty path value is refused, naming the parameter, and nothing is sent", arguments: TransportKind.allCases)
    func emptyPathValue(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            let before = server.requestCount
            let error = await #expect(throws: APIError.self) {
                try await client.send(Request<Echo>(method: .delete, path: "/echo/users/{id}", pathParameters: ["id": ""]))
            }
            guard let apiError = error, apiError.kind == .encodingFailed, let underlying = apiError.underlyingError else {
                Issue.record("expected encodingFailed, got \(String(describing: error))")
                return
            }
            #expect("\(underlying)".contains("'id'"))
            #expect(server.requestCount == before)
            let echo = try await client.send(Request<Echo>(method: .delete, path: "/echo/users/{id}", pathParameters: ["id": "7"]))
            #expect(echo.path == "/echo/users/7")
        }
    }
}
