import Courier
import CourierMacros
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// A client whose Swift parameter names differ from the names on the wire.
@Service @Mockable
protocol Directory {
    /// `page` as it is, then `perPage` as `per_page` and `sortOrder` as `sort-order`.
    @GET("/users") @QueryParams(["page"]) @QueryParams(["perPage": "per_page", "sortOrder": "sort-order"])
    func users(page: Int, perPage: Int, sortOrder: Sort?) async throws -> [Post]

    /// An array repeats its wire name; `X-Request-ID` carries `requestID`.
    @GET("/search") @QueryParams(["query": "q", "tags": "tag[]"]) @Header("X-Request-ID", "requestID")
    func search(query: String, tags: [String], requestID: String) async throws -> [Post]
}

@Suite("Generated services: wire names")
struct ServiceWireNameTests {
    private func makeDirectory() -> (DirectoryService, StubTransport) {
        let stub = StubTransport()
        stub.on(.get, "/users", .json("[]"))
        stub.on(.get, "/search", .json("[]"))
        return (DirectoryService(baseURL: baseURL, transport: stub), stub)
    }

    @Test("@QueryParams([\"perPage\": \"per_page\"]) sends perPage as per_page, in the order written")
    func perPageIsSentAsPerPage() async throws {
        let (directory, stub) = makeDirectory()

        _ = try await directory.users(page: 2, perPage: 50, sortOrder: .newest)
        _ = try await directory.users(page: 1, perPage: 10, sortOrder: nil,
                                      _queryItems: [URLQueryItem(name: "debug", value: "1")])

        #expect(stub.requests.map(\.target) == [
            "/v1/users?page=2&per_page=50&sort-order=newest",
            "/v1/users?page=1&per_page=10&debug=1",
        ])
        #expect(stub.requests.first?.queryItems.map(\.name) == ["page", "per_page", "sort-order"])
    }

    @Test("an array parameter repeats its wire name; the header keeps its own name")
    func arraysRepeatTheWireName() async throws {
        let (directory, stub) = makeDirectory()

        _ = try await directory.search(query: "swift http", tags: ["a", "b"], requestID: "r-1")

        let sent = try #require(stub.requests.first)
        #expect(sent.queryItems == [
            URLQueryItem(name: "q", value: "swift http"),
            URLQueryItem(name: "tag[]", value: "a"), URLQueryItem(name: "tag[]", value: "b"),
        ])
        #expect(sent.query == "q=swift%20http&tag%5B%5D=a&tag%5B%5D=b")
        #expect(sent.headers[HTTPField.Name("X-Request-ID")!] == "r-1")
    }

    @Test("the mock records the Swift names")
    func mockKeepsSwiftNames() async throws {
        let mock = DirectoryServiceMock()
        mock.usersHandler = { call in [Post(id: call.perPage, title: call.sortOrder?.rawValue ?? "-")] }

        let posts = try await mock.users(page: 1, perPage: 25, sortOrder: .oldest)

        #expect(posts == [Post(id: 25, title: "oldest")])
        #expect(mock.usersCalls.map(\.perPage) == [25])
    }
}
