import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

/// Following `Link` headers among middleware that add parameters, and with hostile links.
@Suite("Pagination: Link safety")
struct PaginationLinkSafetyTests {
    private static let link = HTTPField.Name("Link")!

    private func client(_ stub: StubTransport, baseParameters: [URLQueryItem] = [], _ middleware: [any Middleware]) -> APIClient {
        APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com/v2")!, baseParameters: baseParameters),
                  transport: stub, middleware: middleware)
    }

    @Test("a Link that echoes a base parameter does not switch off the base-parameter middleware: page 2 keeps its session header")
    func echoedBaseParameterKeepsMiddleware() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items") { request in
            request.queryItems.contains { $0.name == "page" }
                ? .json("[2]")
                : StubResponse.json("[1]").header(Self.link, #"</v2/items?app=ios&page=2>; rel="next""#)
        }
        let session = BaseParametersMiddleware([URLQueryItem(name: "pub_ticket", value: "T-1")], placement: .headers)
        let client = client(stub, baseParameters: [URLQueryItem(name: "app", value: "ios")], [session])
        let pages = try await client.pages(Request<[Int]>(path: "/items")).collect()
        #expect(pages == [[1], [2]])
        let ticket = HTTPField.Name("pub_ticket")!
        #expect(stub.requests.map { $0.headers[ticket] } == ["T-1", "T-1"])
        #expect(stub.requests.last?.queryItems.filter { $0.name == "app" }.count == 1)
    }

    @Test("a Link that echoes an API key sent as a query item does not make page 2 carry it twice")
    func echoedQueryCredentialIsNotDoubled() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items") { request in
            request.queryItems.contains { $0.name == "page" }
                ? .json("[2]")
                : StubResponse.json("[1]").header(Self.link, #"</v2/items?page=2&key=K-1>; rel="next""#)
        }
        let client = client(stub, [AuthenticationMiddleware(.apiKey("K-1", queryItem: "key"))])
        _ = try await client.pages(Request<[Int]>(path: "/items")).collect()
        #expect(stub.requests.last?.queryItems.filter { $0.name == "key" }.count == 1)
    }

    @Test("an API key under a name that does not look secret, echoed in a Link, stays out of an outer log and of errors")
    func echoedQueryCredentialIsRedactedAboveTheMiddleware() async throws {
        let logging = InMemoryLogHandler()
        let logger = Logger(label: "pages") { _ in logging }
        let stub = StubTransport()
        stub.on(.get, "/items") { request in
            request.queryItems.contains { $0.name == "page" }
                ? .status(500)
                : StubResponse.json("[1]").header(Self.link, #"</v2/items?page=2&appid=K-SECRET-1>; rel="next""#)
        }
        // The logger is outside the authentication middleware: it sees page 2's target as the link gave it.
        let client = client(stub, [LoggingMiddleware(logger: logger, level: .info, style: .verbose),
                                   AuthenticationMiddleware(.apiKey("K-SECRET-1", queryItem: "appid"))])
        let error = await #expect(throws: APIError.self) { try await client.pages(Request<[Int]>(path: "/items")).collect() }
        #expect(stub.requests.last?.queryItems.filter { $0.name == "appid" }.map(\.value) == ["K-SECRET-1"])
        #expect(!String(describing: error).contains("K-SECRET-1"))
        #expect(!String(reflecting: error).contains("K-SECRET-1"))
        let lines = logging.entries.map { "\($0.message) \($0.metadata)" }
        #expect(lines.count >= 2)
        #expect(!lines.joined(separator: "\n").contains("K-SECRET-1"))
        #expect(client.configuration.sensitiveQueryNames.contains("appid"))
    }

    @Test("a refused next link is named in the error with its secret query values redacted")
    func refusedLinkIsRedacted() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", StubResponse.json("[1]").header(Self.link, #"<https://cdn.example.net/p2?X-Amz-Signature=SIG-SECRET&token=TOK-SECRET>; rel="next""#))
        let client = client(stub, [])
        let error = await #expect(throws: APIError.self) { try await client.pages(Request<[Int]>(path: "/items")).collect() }
        let text = String(describing: error)
        #expect(!text.contains("SIG-SECRET") && !text.contains("TOK-SECRET"))
        #expect(text.contains("cdn.example.net"))
    }

    @Test("Page decodes with the client's snake-case decoder too (useSnakeCaseKeys)")
    func pageWithSnakeCaseDecoder() async throws {
        let stub = StubTransport()
        stub.on(.get, "/users") { request in
            let page = Int(request.queryItems.last { $0.name == "page" }?.value ?? "1")!
            return .json(#"{"page": \#(page), "results": [\#(page)], "total_pages": 2, "total_results": 2}"#)
        }
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com/v2")!)
        configuration.useSnakeCaseKeys()
        let client = APIClient(configuration: configuration, transport: stub)
        let pages = try await client.pages(Request<Page<Int>>(path: "/users")).collect()
        #expect(pages.map(\.results) == [[1], [2]])
        #expect(pages.first?.totalResults == 2)
    }

    @Test("collect(maxPages: 0) sends nothing and returns no page")
    func collectZeroPages() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items", .json("[1]"))
        let pages = try await client(stub, []).pages(Request<[Int]>(path: "/items")).collect(maxPages: 0)
        #expect(pages.isEmpty)
        #expect(stub.requests.isEmpty)
    }
}
