import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import OpenAPIRuntime
import Testing

/// What a response still under way may do to the store once it arrives: not undo a purge, not
/// overwrite a newer answer; and what a request that follows no redirect may leave there.
@Suite("CachingMiddleware: responses that arrive after the store changed, and unfollowed redirects")
struct CachingMiddlewareConcurrencyTests: CachingTestBed {
    let clock = ManualClock()

    /// A gate a test opens: the origin's answers wait for it.
    final class Gate: Sendable {
        private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>], arrived: Int)>((false, [], 0))
        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    state.arrived += 1
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }
        var arrived: Int { state.withLock { $0.arrived } }
        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// An origin whose answers to requests the test marks wait at `gate`.
    private func transport(gate: Gate, holds: @escaping @Sendable (HTTPRequest, Int) -> Bool,
                           answer: @escaping @Sendable (HTTPRequest, Int) -> (HTTPResponse.Status, [(HTTPField.Name, String)], String)) -> (any Transport, Locked<Int>) {
        let calls = Locked(0)
        let transport = MiddlewareTestTransport { request, _, _ in
            let call = calls.withLock { $0 += 1; return $0 }
            if holds(request, call) { await gate.wait() }
            let (status, fields, body) = answer(request, call)
            var headerFields = HTTPFields()
            for (name, value) in fields { headerFields.append(HTTPField(name: name, value: value)) }
            return (HTTPResponse(status: status, headerFields: headerFields), HTTPBody(body))
        }
        return (transport, calls)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<12_000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("a response under way when the store is purged (logout) is not stored afterwards: a plain miss, and a background revalidation; memory and disk stores",
          arguments: [false, true], [false, true])
    func purgeIsNotUndone(inBackground: Bool, onDisk: Bool) async throws {
        let gate = Gate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-purge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any HTTPCacheStore = onDisk ? DiskCacheStore(directory: directory) : MemoryCacheStore()
        func storedCount() async -> Int {
            await store.entry(for: HTTPCacheKey(namespace: "default", method: "GET", url: "https://api.example.com/v1/items", credentials: nil)) == nil ? 0 : 1
        }
        let held = inBackground ? 2 : 1
        let (origin, _) = transport(gate: gate, holds: { _, call in call == held }) { request, call in
            if request.headerFields[.ifNoneMatch] != nil { return (.notModified, [(.eTag, "\"1\""), (.cacheControl, "max-age=60")], "") }
            return (.ok, [(.eTag, "\"1\""), (.cacheControl, "max-age=10, stale-while-revalidate=60")], "user A's \(call)")
        }
        let client = MiddlewareFixtures.client(origin, [cache(store, stale: .whileRevalidating)])
        var foreground: Task<String, any Error>?
        if inBackground {
            _ = try await client.send(get())
            clock.advance(by: 20)
            // Stale: served at once, refreshed in the background (that answer is held).
            #expect(try await client.send(get()) == "user A's 1")
        } else {
            foreground = Task { try await client.send(get()) }
        }
        try await waitUntil { gate.arrived == 1 }
        #expect(gate.arrived == 1)
        await store.removeAll()            // logout
        gate.open()                        // the answer to the request sent before it arrives
        _ = try await foreground?.value
        for _ in 0..<100 where await storedCount() == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await storedCount() == 0)
    }

    @Test("a response under way through one DiskCacheStore is not stored after a purge (logout) through another store on the same directory: an app and its extension")
    func purgeThroughAnotherStoreIsNotUndone() async throws {
        let gate = Gate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-shared-purge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = DiskCacheStore(directory: directory)
        let appExtension = DiskCacheStore(directory: directory)
        let (origin, _) = transport(gate: gate, holds: { _, call in call == 1 }) { _, call in
            (.ok, [(.cacheControl, "max-age=600")], "user A's \(call)")
        }
        let client = MiddlewareFixtures.client(origin, [cache(app)])
        let request = Task { try await client.send(get()) }
        try await waitUntil { gate.arrived == 1 }
        await appExtension.removeAll()     // logout, in the extension
        gate.open()                        // the answer to the request the app sent before it arrives
        #expect(try await request.value == "user A's 1")
        let key = HTTPCacheKey(namespace: "default", method: "GET", url: "https://api.example.com/v1/items", credentials: nil)
        #expect(await app.entry(for: key) == nil, "the app stored user A's response after the extension's logout")
        // A request sent after the purge is stored again, for both.
        #expect(try await client.send(get()) == "user A's 2")
        #expect(await appExtension.entry(for: key) != nil)
    }

    /// A store whose first lookup waits at `gate`: a purge can land while a request looks.
    final class SlowLookupStore: HTTPCacheStore {
        let base = MemoryCacheStore()
        let gate = Gate()
        private let lookups = Locked(0)
        func entry(for key: HTTPCacheKey) async -> CachedHTTPResponse? {
            if lookups.withLock({ $0 += 1; return $0 }) == 1 { await gate.wait() }
            return await base.entry(for: key)
        }
        func store(_ entry: CachedHTTPResponse) async { await base.store(entry) }
        func removeEntry(for key: HTTPCacheKey) async { await base.removeEntry(for: key) }
        func removeEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async { await base.removeEntries(where: predicate) }
        func removeAll() async { await base.removeAll() }
        var purgeCount: Int { get async { base.purgeCount } }
        var digestKey: [UInt8]? { base.digestKey }
    }

    @Test("a purge (logout) that lands while a request looks in the store is not undone by that request's answer")
    func purgeDuringTheLookupIsNotUndone() async throws {
        let store = SlowLookupStore()
        let (origin, _) = transport(gate: Gate(), holds: { _, _ in false }) { _, call in
            (.ok, [(.cacheControl, "max-age=600")], "user A's \(call)")
        }
        let client = MiddlewareFixtures.client(origin, [cache(store)])
        let request = Task { try await client.send(get()) }
        try await waitUntil { store.gate.arrived == 1 }
        await store.removeAll()            // logout, while the request is looking
        store.gate.open()
        #expect(try await request.value == "user A's 1")
        #expect(await store.base.entry(for: HTTPCacheKey(namespace: "default", method: "GET", url: "https://api.example.com/v1/items", credentials: nil)) == nil)
    }

    @Test("a GET answered before a PUT to its URL succeeded, and arriving after, is not stored as fresh")
    func invalidationIsNotUndone() async throws {
        let gate = Gate()
        let store = MemoryCacheStore()
        let (origin, _) = transport(gate: gate, holds: { request, _ in request.method == .get }) { request, call in
            request.method == .put ? (.noContent, [], "") : (.ok, [(.cacheControl, "max-age=600")], "v\(call)")
        }
        let client = MiddlewareFixtures.client(origin, [cache(store)])
        let before = Task { try await client.send(get()) }
        try await waitUntil { gate.arrived == 1 }
        _ = try await client.send(Request<Data>(method: .put, path: "/items", body: .data(Data("{}".utf8), contentType: "application/json")))
        gate.open()                         // the answer generated before the PUT arrives now
        #expect(try await before.value == "v1")
        let after = try await client.response(for: get())
        #expect(after.metrics.cacheOutcome == .miss, "the answer from before the PUT was served from the store")
    }

    @Test("a successful write to one URL does not stop a GET to another, under way at the time, from being stored; nor does it count as a purge",
          arguments: [false, true])
    func invalidationIsNoPurge(onDisk: Bool) async throws {
        let gate = Gate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-invalidation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any HTTPCacheStore = onDisk ? DiskCacheStore(directory: directory) : MemoryCacheStore()
        let purgesBefore = await store.purgeCount
        let (origin, _) = transport(gate: gate, holds: { request, _ in request.method == .get }) { request, call in
            request.method == .post ? (.created, [], "") : (.ok, [(.cacheControl, "max-age=600")], "v\(call)")
        }
        let client = MiddlewareFixtures.client(origin, [cache(store)])
        let feed = Task { try await client.send(get("/feed")) }
        try await waitUntil { gate.arrived == 1 }
        _ = try await client.send(Request<Data>(method: .post, path: "/analytics", body: .data(Data("{}".utf8), contentType: "application/json")))
        gate.open()
        _ = try await feed.value
        #expect(try await client.response(for: get("/feed")).metrics.cacheOutcome == .hit, "the feed was not stored")
        #expect(await store.purgeCount == purgesBefore)
    }

    @Test("a 304 that arrives after a newer response was stored does not put the older one back")
    func lateNotModified() async throws {
        let gate = Gate()
        let store = MemoryCacheStore()
        let (origin, _) = transport(gate: gate, holds: { request, _ in request.headerFields[.ifNoneMatch] != nil }) { request, call in
            if request.headerFields[.ifNoneMatch] != nil { return (.notModified, [(.cacheControl, "max-age=60")], "") }
            return (.ok, [(.eTag, "\"\(call)\""), (.cacheControl, "max-age=10")], "v\(call)")
        }
        let client = MiddlewareFixtures.client(origin, [cache(store)])
        #expect(try await client.send(get()) == "v1")
        clock.advance(by: 20)
        // A revalidates v1; its 304 is held.
        let revalidating = Task { try await client.send(get()) }
        try await waitUntil { gate.arrived == 1 }
        // B reloads meanwhile and stores v2.
        var reload = RequestOptions()
        reload.cachePolicy = .reloadIgnoringCache
        #expect(try await client.send(get(options: reload)) == "v3")
        gate.open()
        #expect(try await revalidating.value == "v1")   // A's own answer: the body its 304 confirmed
        #expect(try await client.send(get()) == "v3")   // the store keeps the newer response
    }

    @Test("a 304 still refreshes the entry it validated, in memory and on disk (whose dates round-trip through the file)", arguments: [false, true])
    func notModifiedRefreshes(onDisk: Bool) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-refresh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any HTTPCacheStore = onDisk ? DiskCacheStore(directory: directory) : MemoryCacheStore()
        let origin = CacheOrigin { request, call in
            if request.headerFields[.ifNoneMatch] != nil { return (.notModified, [(.eTag, "\"1\""), (.cacheControl, "max-age=60")], "") }
            return (.ok, [(.eTag, "\"1\""), (.cacheControl, "max-age=10")], "v\(call)")
        }
        let client = client(origin, [cache(store)])
        #expect(try await client.send(get()) == "v1")
        clock.advance(by: 20)
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .revalidated)
        clock.advance(by: 20)   // within the 304's max-age=60
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .hit)
        #expect(origin.count == 2)
    }

    @Test("a 304 whose ETag differs from the stored one only by W/ still refreshes the entry")
    func weakTagRefreshes() async throws {
        let origin = CacheOrigin { request, call in
            if request.headerFields[.ifNoneMatch] != nil { return (.notModified, [(.eTag, "\"1\""), (.cacheControl, "max-age=60")], "") }
            return (.ok, [(.eTag, "W/\"1\""), (.cacheControl, "max-age=10")], "v\(call)")
        }
        let client = client(origin, [cache()])
        #expect(try await client.send(get()) == "v1")
        clock.advance(by: 20)
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .revalidated)
        clock.advance(by: 20)
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .hit)
        #expect(origin.count == 2)
    }

    @Test("a redirect answered to a request that follows none is not stored: a later request follows it")
    func unfollowedRedirect() async throws {
        let origin = CacheOrigin { request, call in
            request.path == "/v1/go" ? (.movedPermanently, [(.location, "/v1/target"), (.cacheControl, "max-age=3600")], "") : (.ok, [], "target \(call)")
        }
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.acceptableStatusCodes = Set(200..<400)
        let client = APIClient(configuration: configuration, transport: origin.transport, middleware: [cache()])
        var noFollow = RequestOptions()
        noFollow.redirectPolicy = RedirectPolicy.none
        let unfollowed = try await client.response(for: get("/go", options: noFollow))
        #expect(unfollowed.statusCode == 301)
        #expect(try await client.send(get("/go")) == "target 3")
        #expect(origin.count == 3)
    }

    @Test("a background revalidation that fails says so in a debug line")
    func backgroundFailureLogged() async throws {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .debug
        let failing = Locked(false)
        let (origin, _) = transport(gate: Gate(), holds: { _, _ in false }) { _, call in
            (.ok, [(.eTag, "\"1\""), (.cacheControl, "max-age=10, stale-while-revalidate=60")], "v\(call)")
        }
        let erroring = MiddlewareTestTransport { request, body, context in
            if failing.current { throw TransportError(.connectionFailed, "refused", requestMayHaveBeenSent: false) }
            return try await origin.send(request, body: body, context: context)
        }
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.logger = logger
        let client = APIClient(configuration: configuration, transport: erroring, middleware: [cache(stale: .whileRevalidating)])
        _ = try await client.send(get())
        clock.advance(by: 20)
        failing.withLock { $0 = true }
        #expect(try await client.send(get()) == "v1")
        func failureLines() -> [String] {
            handler.entries.filter { $0.metadata["courier.cache"]?.description == "revalidation-failed" }.map { "\($0.message)" }
        }
        for _ in 0..<1_000 where failureLines().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(failureLines().count == 1)
    }
}
