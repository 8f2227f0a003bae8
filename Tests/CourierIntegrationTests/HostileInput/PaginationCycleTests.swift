import Courier
import CourierTestServer
import Foundation
import Testing

/// A server that leads pagination round in a circle ends the sequence with a clear error.
@Suite("Pagination cycles end")
struct PaginationCycleTests {
    private static func isCycle(_ error: any Error) -> Bool {
        guard let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError, let pagination = underlying as? PaginationError else { return false }
        return pagination.reason.contains("cycle")
    }

    @Test("a Link chain 1 → 2 → 1 fails after two pages", arguments: TransportKind.allCases)
    func linkCycle(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.timeout = .seconds(60) }
            var pages: [[Int]] = []
            await #expect {
                for try await page in client.pages(Request<[Int]>(path: "/pages/cycle/1"), followingLink: "next") { pages.append(page) }
            } throws: { Self.isCycle($0) }
            #expect(pages == [[1], [2]])
            #expect(server.requestCount == 2)
        }
    }

    @Test("a cursor that comes round again (a → b → c → a) fails", arguments: TransportKind.allCases)
    func cursorCycle(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            var items: [String] = []
            await #expect {
                for try await page in client.pages(Request<CursorPageDTO>(path: "/cursor-cycle").query("cursor", "a"), cursorParameter: "cursor", nextCursor: { $0.nextCursor }) {
                    items += page.items
                }
            } throws: { Self.isCycle($0) }
            #expect(items == ["a", "b", "c"])
        }
    }

    @Test("a page cap ends an endless chain with a clear error, not a silent stop", arguments: TransportKind.allCases)
    func pageCap(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server)
            var count = 0
            await #expect {
                for try await _ in client.pages(Request<[Int]>(path: "/pages/cycle/1", query: [.init(name: "size", value: "1000")]), followingLink: "next").limited(toPages: 5) {
                    count += 1
                }
            } throws: { error in
                guard let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError, let pagination = underlying as? PaginationError else { return false }
                return pagination.reason.contains("5 pages")
            }
            #expect(count == 5)
        }
    }
}

struct CursorPageDTO: Decodable, Sendable {
    var items: [String]
    var nextCursor: String?
}
