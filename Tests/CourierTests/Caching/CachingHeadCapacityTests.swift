@testable import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Heads near and past `HTTPFields`' capacity (65,534 fields) through the cache, the client and
/// the stores: a clear error or a miss, never a trap. Each probe runs in a child process (an exit
/// test), so a trap fails the test instead of ending the run.
@Suite("Caching: heads near HTTPFields' capacity never trap")
struct CachingHeadCapacityTests: DiskCacheTestBed {
    struct ProbeFailed: Error, CustomStringConvertible { var description: String }

    /// A `200` with `count` distinct fields (`Cache-Control: max-age=600` among them).
    static func head(fieldCount count: Int) -> HTTPResponse {
        var fields = HTTPFields()
        fields.reserveCapacity(count)
        fields.append(HTTPField(name: .cacheControl, value: "max-age=600"))
        for index in 1..<count { fields.append(HTTPField(name: HTTPField.Name("X-F-\(index)")!, value: "v")) }
        return HTTPResponse(status: .ok, headerFields: fields)
    }

    static func client(answering head: HTTPResponse, _ middleware: [any Middleware]) -> APIClient {
        let transport = MiddlewareTestTransport { _, _, _ in (head, HTTPBody("x")) }
        return MiddlewareFixtures.client(transport, middleware)
    }

    /// Sends a GET and expects the network error that names the limit.
    static func expectRefused(_ client: APIClient) async throws {
        do {
            _ = try await client.send(MiddlewareFixtures.text(.get, "/items"))
            throw ProbeFailed(description: "a head past the limit was answered")
        } catch let error as APIError {
            guard error.kind == .network, "\(error)".contains("more than \(HTTPFields.responseFieldLimit) header fields") else {
                throw ProbeFailed(description: "not the limit's error: \(error)")
            }
        }
    }

    @Test("an answer of 65,534 fields through the cache is a network error naming the limit")
    func answerAtCapacity() async {
        await #expect(processExitsWith: .success) {
            for count in [HTTPFields.capacity - 1, HTTPFields.capacity] {
                let client = CachingHeadCapacityTests.client(answering: CachingHeadCapacityTests.head(fieldCount: count), [CachingMiddleware()])
                try await CachingHeadCapacityTests.expectRefused(client)
            }
        }
    }

    @Test("an answer at the limit is stored and served with Age and Courier-Cache; one over it is refused")
    func answerAtTheLimit() async throws {
        let store = MemoryCacheStore()
        let atLimit = Self.client(answering: Self.head(fieldCount: HTTPFields.responseFieldLimit), [CachingMiddleware(store: store)])
        let first = try await atLimit.response(for: MiddlewareFixtures.text(.get, "/items"))
        let second = try await atLimit.response(for: MiddlewareFixtures.text(.get, "/items"))
        #expect(first.response.headerFields[.courierCache] == "miss")
        #expect(second.response.headerFields[.courierCache] == "hit")
        #expect(second.response.headerFields[.age] != nil)
        try await Self.expectRefused(Self.client(answering: Self.head(fieldCount: HTTPFields.responseFieldLimit + 1), [CachingMiddleware()]))
    }

    @Test("a stored entry of 65,533 fields is a miss and is removed, on every later request")
    func storedEntryAtCapacity() async {
        await #expect(processExitsWith: .success) {
            let store = MemoryCacheStore()
            let cache = CachingMiddleware(store: store)
            let small = HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"])
            let client = CachingHeadCapacityTests.client(answering: small, [cache])
            _ = try await client.send(MiddlewareFixtures.text(.get, "/items"))
            // The same key, with a head as large as a tampered store can hold.
            let keys = Locked<[HTTPCacheKey]>([])
            await store.removeEntries { key in keys.withLock { $0.append(key) }; return false }
            guard let key = keys.current.first, var huge = await store.entry(for: key) else { throw ProbeFailed(description: "nothing stored") }
            huge.response = CachingHeadCapacityTests.head(fieldCount: HTTPFields.capacity - 1)
            await store.store(huge)
            let answer = try await client.response(for: MiddlewareFixtures.text(.get, "/items"))
            guard answer.response.headerFields[.courierCache] == "miss" else { throw ProbeFailed(description: "served: \(answer.response.status)") }
            let replaced = await store.entry(for: key)
            guard let replaced, replaced.response.headerFields.count < 10 else { throw ProbeFailed(description: "the huge entry stayed") }
        }
    }

    @Test("a disk entry listing 65,535 field pairs is a miss and is removed")
    func tamperedDiskEntry() async {
        await #expect(processExitsWith: .success) {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-capacity-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let directory = root.appendingPathComponent("cache")
            let store = DiskCacheStore(directory: directory)
            let key = HTTPCacheKey(namespace: "default", method: "GET", url: "https://api.example.com/huge", credentials: nil)
            await store.store(CachedHTTPResponse(key: key, response: HTTPResponse(status: .ok, headerFields: [.eTag: "\"1\""]), body: Data("x".utf8),
                                                 requestDate: Date(), responseDate: Date()))
            let file = directory.appendingPathComponent(DiskCacheDirectory.fileName(for: key))
            try CachingHeadCapacityTests.rewriteMetadata(of: file) { json in
                let pairs = Array(repeating: #"["x-f","v"]"#, count: HTTPFields.capacity + 1).joined(separator: ",")
                guard let range = json.range(of: #""headerFields":\[[^\]]*\]\]"#, options: .regularExpression) else {
                    throw ProbeFailed(description: "no headerFields in \(json.prefix(300))")
                }
                json.replaceSubrange(range, with: "\"headerFields\":[\(pairs)]")
            }
            guard await store.entry(for: key) == nil else { throw ProbeFailed(description: "the tampered entry was served") }
            guard !FileManager.default.fileExists(atPath: file.path) else { throw ProbeFailed(description: "the tampered entry stayed") }
        }
    }

    @Test("a cassette listing 65,535 header pairs is an InvalidExchange, not a trap")
    func hostileCassette() async {
        await #expect(processExitsWith: .success) {
            let pairs = Array(repeating: #"["x-f","v"]"#, count: HTTPFields.capacity + 1).joined(separator: ",")
            let json = #"{"version":1,"exchanges":[{"request":{"method":"GET","url":"https://api.example.com/x","headers":[],"body":""},"response":{"status":200,"headers":[\#(pairs)],"body":"x"}}]}"#
            let cassette = try JSONDecoder().decode(Cassette.self, from: Data(json.utf8))
            _ = cassette.exchanges.first?.response.headerFields
            let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "https://api.example.com")!), transport: ReplayTransport(cassette: cassette))
            do {
                _ = try await client.send(Request<Data>(path: "/x"))
                throw ProbeFailed(description: "replayed")
            } catch let error as APIError {
                guard "\(error)".contains("header fields") else { throw ProbeFailed(description: "\(error)") }
            }
        }
    }
}
