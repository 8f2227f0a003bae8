import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The client's status check reads `RequestContext.accepts(statusCode:)`, which compares with
/// 200–299 without hashing while the set is known to be those codes.
@Suite("Request context")
struct RequestContextTests {
    private static let base = URL(string: "https://api.example.com")!

    @Test("accepts 200–299 by default, and exactly the codes of a set assigned later")
    func acceptsStatusCodes() {
        var context = RequestContext(operationName: "Get", baseURL: Self.base)
        #expect([200, 204, 299].allSatisfy(context.accepts(statusCode:)))
        #expect(![199, 300, 304, 404, 500, -1].contains(where: context.accepts(statusCode:)))
        context.acceptableStatusCodes = [200, 404]
        #expect(context.accepts(statusCode: 404))
        #expect(!context.accepts(statusCode: 204))   // not 200–299 any more
        context.acceptableStatusCodes.insert(204)
        #expect(context.accepts(statusCode: 204))
        context.acceptableStatusCodes = Set(200..<300)
        #expect(context.accepts(statusCode: 250) && !context.accepts(statusCode: 404))
    }

    @Test("the client's own check follows the configuration's codes and the request's")
    func clientChecksTheMergedCodes() async throws {
        let transport = MiddlewareTestTransport { request, _, _ in
            let code = Int(request.path?.split(separator: "/").last ?? "") ?? 500
            return (HTTPResponse(status: .init(code: code)), HTTPBody("body"))
        }
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.acceptableStatusCodes = [200, 404]
        let client = APIClient(configuration: configuration, transport: transport)
        _ = try await client.data(for: Request<Data>(path: "/404"))
        await #expect { try await client.data(for: Request<Data>(path: "/204")) } throws: { ($0 as? APIError)?.statusCode == 204 }
        let defaults = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: transport)
        _ = try await defaults.data(for: Request<Data>(path: "/204"))
        await #expect { try await defaults.data(for: Request<Data>(path: "/404")) } throws: { ($0 as? APIError)?.statusCode == 404 }
        _ = try await defaults.data(for: Request<Data>(path: "/404", options: RequestOptions(acceptableStatusCodes: [404])))
        await #expect { try await defaults.data(for: Request<Data>(path: "/200", options: RequestOptions(acceptableStatusCodes: [404]))) }
            throws: { ($0 as? APIError)?.statusCode == 200 }
    }
}
