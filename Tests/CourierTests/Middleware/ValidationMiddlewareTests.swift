import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct ValidationMiddlewareTests {
    private typealias F = MiddlewareFixtures

    @Test func matchesContentTypesWithOrWithoutParameters() {
        #expect(ValidationMiddleware.matches("application/json; charset=utf-8", "application/json"))
        #expect(ValidationMiddleware.matches("Application/JSON", "application/json"))
        #expect(ValidationMiddleware.matches("image/png", "image/*"))
        #expect(ValidationMiddleware.matches("text/plain", "*/*"))
        #expect(ValidationMiddleware.matches("text/plain; charset=UTF-8", "text/plain; charset=utf-8"))
        #expect(!ValidationMiddleware.matches("text/plain; charset=latin1", "text/plain; charset=utf-8"))
        #expect(!ValidationMiddleware.matches("text/html", "application/json"))
        #expect(!ValidationMiddleware.matches("application/jsonp", "application/json"))
    }

    @Test func acceptsAnySequenceOfStatusCodes() async throws {
        let stub = StubTransport()
        stub.on(.get, "/accepted", .status(202))
        let client = F.client(stub, [ValidationMiddleware(statusCodes: [200, 204])])
        await #expect { try await client.send(F.text(.get, "/accepted")) } throws: { ($0 as? APIError)?.statusCode == 202 }
        let lenient = F.client(stub, [ValidationMiddleware(statusCodes: 200...299)])
        _ = try await lenient.send(F.text(.get, "/accepted"))
    }

    @Test("a status the request itself accepts (RequestOptions(acceptableStatusCodes:)) passes, as the client's own check lets it")
    func perRequestAcceptableStatusesPass() async throws {
        let stub = StubTransport()
        stub.on(.get, "/missing", .status(404))
        stub.on(.get, "/page", .text("<html>not found</html>", status: 404))
        let validation = ValidationMiddleware(statusCodes: 200..<300, contentTypes: ["application/json"])
        let client = F.client(stub, [validation])
        let lenient = Request<Data>(path: "/missing", options: RequestOptions(acceptableStatusCodes: [200, 404]))
        #expect(try await client.response(for: lenient).statusCode == 404)
        // Accepted by the request, its error page is not held to the success content types.
        let page = Request<Data>(path: "/page", options: RequestOptions(acceptableStatusCodes: [200, 404]))
        #expect(try await client.response(for: page).statusCode == 404)
        // A client that accepts 404 for every request still meets the middleware's own check.
        var configuration = APIConfiguration(baseURL: F.baseURL)
        configuration.acceptableStatusCodes = Set(200..<300).union([404])
        let accepting = APIClient(configuration: configuration, transport: stub, middleware: [validation])
        await #expect { try await accepting.send(Request<Data>(path: "/missing")) } throws: { ($0 as? APIError)?.statusCode == 404 }
    }

    @Test func reportsTheServersMessageForABadStatus() async throws {
        let stub = StubTransport()
        stub.on(.get, "/missing", .status(404, message: "No such thing"))
        let client = F.client(stub, [ValidationMiddleware(statusCodes: 200..<300)])
        await #expect { try await client.send(F.text(.get, "/missing")) } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .httpError, apiError.statusCode == 404, case let message = apiError.message else { return false }
            return message == "No such thing"
        }
    }

    @Test func refusesAnUnexpectedContentType() async throws {
        let stub = StubTransport()
        stub.on(.get, "/page", .data(Data("<html>".utf8), contentType: "text/html; charset=utf-8"))
        stub.on(.get, "/data", .json(#"{"a":1}"#))
        let client = F.client(stub, [ValidationMiddleware(contentTypes: ["application/json"])])
        await #expect { try await client.send(F.text(.get, "/page")) } throws: { error in
            guard let apiError = error as? APIError, apiError.kind == .unexpectedContentType, case let expected = apiError.expectedContentTypes, case let received = apiError.receivedContentType else { return false }
            return expected == ["application/json"] && received == "text/html; charset=utf-8"
        }
        #expect(try await client.send(F.text(.get, "/data")) == #"{"a":1}"#)
    }

    @Test func doesNotCheckTheContentTypeOfAnEmptyResponse() async throws {
        let stub = StubTransport()
        stub.on(.delete, "/item", .status(204))
        let client = F.client(stub, [ValidationMiddleware(contentTypes: ["application/json"])])
        _ = try await client.send(F.text(.delete, "/item"))
    }
}
