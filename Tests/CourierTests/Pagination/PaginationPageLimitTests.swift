import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// A server whose pages never end (each one links to a new one) is stopped at a page limit with
/// a clear error, by default too: never an endless loop or an array that grows without bound.
@Suite("Pagination: page limit")
struct PaginationPageLimitTests {
    private static let link = HTTPField.Name("Link")!

    /// A stub whose page `n` links to page `n + 1`, up to `last` (then no link).
    private func endlessChain(last: Int = .max) -> (APIClient, StubTransport) {
        let stub = StubTransport()
        stub.on(.get, "/items") { request in
            let page = Int(request.queryItems.last { $0.name == "page" }?.value ?? "1") ?? 1
            let response = StubResponse.json("[\(page)]")
            return page < last ? response.header(Self.link, "</items?page=\(page + 1)>; rel=\"next\"") : response
        }
        return (APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub), stub)
    }

    private static func limitReason(_ error: any Error) -> String? {
        guard let apiError = error as? APIError, apiError.kind == .network,
              let pagination = apiError.underlyingError as? PaginationError else { return nil }
        return pagination.reason
    }

    @Test("without limited(toPages:), an endless chain of new pages fails after the default limit, with an error that names it")
    func defaultLimit() async throws {
        let limit = PageSequence<[Int]>.defaultPageLimit
        // The chain does end, just past the limit: without one, the loop would end quietly.
        let (client, stub) = endlessChain(last: limit + 2)
        var count = 0
        await #expect {
            for try await _ in client.pages(Request<[Int]>(path: "/items"), followingLink: "next") { count += 1 }
        } throws: { error in
            Self.limitReason(error)?.contains("more than \(limit) pages") == true
        }
        #expect(count == limit)
        #expect(stub.requests.count == limit)
    }

    @Test("collect() stops at the default limit with the error, rather than growing its array without bound")
    func collectKeepsTheDefaultLimit() async throws {
        let limit = PageSequence<[Int]>.defaultPageLimit
        let (client, stub) = endlessChain(last: limit + 2)
        await #expect {
            _ = try await client.pages(Request<[Int]>(path: "/items"), followingLink: "next").collect()
        } throws: { Self.limitReason($0)?.contains("more than \(limit) pages") == true }
        #expect(stub.requests.count == limit)
    }

    @Test("collect() after limited(toPages:) throws at that limit")
    func collectKeepsTheSetLimit() async throws {
        let (client, _) = endlessChain()
        await #expect {
            _ = try await client.pages(Request<[Int]>(path: "/items"), followingLink: "next").limited(toPages: 7).collect(maxPages: 20)
        } throws: { Self.limitReason($0)?.contains("more than 7 pages") == true }
    }

    @Test("a next-page link that is refused right at the limit is reported as itself, not as the limit")
    func errorAtTheLimitIsItsOwn() async throws {
        let stub = StubTransport()
        stub.on(.get, "/items") { _ in StubResponse.json("[1]").header(Self.link, "<https://elsewhere.example/items?page=2>; rel=\"next\"") }
        let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: stub)
        await #expect {
            for try await _ in client.pages(Request<[Int]>(path: "/items"), followingLink: "next").limited(toPages: 1) {}
        } throws: { ($0 as? APIError)?.kind == .invalidURL }
    }

    @Test("limited(toPages:) replaces the limit, the last call wins (raising the default is possible)")
    func lastLimitWins() async throws {
        let (client, stub) = endlessChain(last: 6)
        let pages = try await client.pages(Request<[Int]>(path: "/items"), followingLink: "next")
            .limited(toPages: 3).limited(toPages: 6).collect()
        #expect(pages == [[1], [2], [3], [4], [5], [6]])
        #expect(stub.requests.count == 6)
    }

    @Test("a chain that ends exactly at the limit ends without an error")
    func endingAtTheLimit() async throws {
        let (client, _) = endlessChain(last: 4)
        let pages = try await client.pages(Request<[Int]>(path: "/items"), followingLink: "next").limited(toPages: 4).collect()
        #expect(pages.count == 4)
    }

    @Test("collect(maxPages:) above the default limit raises it: the pages asked for are fetched, then collecting stops")
    func collectAboveTheDefault() async throws {
        let limit = PageSequence<[Int]>.defaultPageLimit
        let (client, stub) = endlessChain()
        let pages = try await client.pages(Request<[Int]>(path: "/items"), followingLink: "next").collect(maxPages: limit + 3)
        #expect(pages.count == limit + 3)
        #expect(stub.requests.count == limit + 3)
    }
}
