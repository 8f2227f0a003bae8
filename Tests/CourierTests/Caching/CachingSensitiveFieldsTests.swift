import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Response fields the client calls secret — its `sensitiveHeaders`, and names middleware adds
/// to the context — are never stored, on disk or in memory, nor handed back on a hit or a `304`.
@Suite("CachingMiddleware: configured secret response fields are not stored")
struct CachingSensitiveFieldsTests: CachingTestBed {
    let clock = ManualClock()
    static let sessionToken = HTTPField.Name("X-Device-Binding")!   // no name fragment Courier calls secret
    static let rotated = HTTPField.Name("X-Rotated")!

    @Test("a field named in APIConfiguration.sensitiveHeaders is handed on live but not stored nor served on a hit")
    func configuredNames() async throws {
        let origin = CacheOrigin { _, call in (.ok, [(.cacheControl, "max-age=60"), (Self.sessionToken, "secret-\(call)")], "x") }
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.sensitiveHeaders = [Self.sessionToken]
        let store = MemoryCacheStore()
        let client = APIClient(configuration: configuration, transport: origin.transport, middleware: [cache(store)])
        let first = try await client.response(for: get())
        let second = try await client.response(for: get())
        #expect(first.response.headerFields[Self.sessionToken] == "secret-1")
        #expect(second.metrics.cacheOutcome == .hit)
        #expect(second.response.headerFields[Self.sessionToken] == nil)
        #expect(origin.count == 1)
    }

    @Test("a name middleware adds to the context's sensitiveHeaders is not stored, nor merged from a 304")
    func contextNames() async throws {
        let origin = CacheOrigin { request, call in
            if request.headerFields[.ifNoneMatch] != nil { return (.notModified, [(.eTag, "\"a\""), (Self.rotated, "token-\(call)")], "") }
            return (.ok, [(.cacheControl, "no-cache"), (.eTag, "\"a\""), (Self.rotated, "token-\(call)")], "x")
        }
        let marksSecret = MiddlewareTestSpy { request, body, context, next in
            var context = context
            context.sensitiveHeaders.insert(Self.rotated)
            return try await next(request, body, context)
        }
        let client = client(origin, [marksSecret, cache()])
        let first = try await client.response(for: get())
        let second = try await client.response(for: get())
        #expect(first.response.headerFields[Self.rotated] == "token-1")
        #expect(second.metrics.cacheOutcome == .revalidated)
        #expect(second.response.headerFields[Self.rotated] == nil)
    }

    @Test("on disk: the configured secret field is not in the entry file")
    func notOnDisk() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-sensitive-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let origin = CacheOrigin { _, _ in (.ok, [(.cacheControl, "max-age=60"), (Self.sessionToken, "very-secret-value")], "x") }
        var configuration = APIConfiguration(baseURL: MiddlewareFixtures.baseURL)
        configuration.sensitiveHeaders = [Self.sessionToken]
        let client = APIClient(configuration: configuration, transport: origin.transport, middleware: [cache(DiskCacheStore(directory: root))])
        _ = try await client.response(for: get())
        #expect(try await client.response(for: get()).metrics.cacheOutcome == .hit)
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            let contents = try Data(contentsOf: root.appendingPathComponent(name))
            #expect(!String(decoding: contents, as: UTF8.self).contains("very-secret-value"), "\(name)")
        }
    }
}
