@testable import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryLogging
import Logging
import OpenAPIRuntime
import Testing

/// Seeded heads near and past `HTTPFields`' capacity (65,534 fields: one more traps) through
/// every place Courier adds a field to a head it did not build — the cache's tag, `Age` and
/// `304` merge, the cookie jar, the interceptor's `Content-Length`, the stub's `Content-Length`,
/// a recording's scrubbed copy — and through `replace(with:)` directly: each case is a success
/// (at most 10,000 fields) or a network error naming the limit. The whole run is one child
/// process (an exit test), so a trap fails the test instead of ending the run.
@Suite("Hostile inputs: heads near HTTPFields' capacity")
struct HeadCapacityPropertyTests {
    static let seed: UInt64 = 0xC0FFEE_0005
    static let cases = 10

    /// A transport answering each request with the head the case built (a `304` with the same
    /// fields on a second call with validators).
    struct HeadTransport: Transport {
        let fields: HTTPFields
        func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
            if request.headerFields[.ifNoneMatch] != nil { return (HTTPResponse(status: .notModified, headerFields: fields), nil) }
            return (HTTPResponse(status: .ok, headerFields: fields), HTTPBody("{}"))
        }
    }

    static func fields(count: Int, shape: Int) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(count)
        let base: [HTTPField] = [HTTPField(name: .cacheControl, value: "max-age=0"), HTTPField(name: .eTag, value: "\"v\"")]
        for field in base.prefix(count) { fields.append(field) }
        let setCookie = HTTPField(name: .setCookie, value: "a=1")
        while fields.count < count {
            switch shape {
            case 0: fields.append(HTTPField(name: HTTPField.Name("X-F-\(fields.count)")!, value: "v"))
            case 1: fields.append(setCookie)
            default: fields.append(HTTPField(name: .age, value: "\(fields.count)"))
            }
        }
        return fields
    }

    @Test("seeded heads of 10,000 to 65,534 fields through the cache, jar, interceptor, recorder and replace(with:)")
    func headsNearCapacity() async throws {
        // Not `observing:` the child's output: Swift Testing reads it on a thread of the
        // cooperative pool until the child ends, which stalls every other test's timers.
        await #expect(processExitsWith: .success) {
            var values = HostileValues(seed: HeadCapacityPropertyTests.seed)
            let counts = [10_000, 10_001, 65_534]
            var tried = 0, succeeded = 0, refused = 0
            let recordings = FileManager.default.temporaryDirectory.appendingPathComponent("courier-capacity-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: recordings) }
            for index in 0..<HeadCapacityPropertyTests.cases {
                // Every count near a limit in each of the three shapes, then seeded counts.
                let fixed = index < counts.count * 3
                let count = fixed ? counts[index % counts.count] : values.int(0...HTTPFields.capacity)
                let shape = fixed ? index / counts.count : values.int(0...2)
                let fields = HeadCapacityPropertyTests.fields(count: count, shape: shape)
                // Direct: Courier's own edits of such a head.
                var edited = fields
                edited.replace(with: [HTTPField(name: .age, value: "1"), HTTPField(name: .courierCache, value: "hit")])
                edited.replace(with: (0..<12).map { HTTPField(name: HTTPField.Name("X-R-\($0 % 5)")!, value: "\($0)") })
                _ = StoredHeaderFields.merging(fields, with: fields)
                _ = StoredHeaderFields.storable(HTTPResponse(status: .ok, headerFields: fields))
                // Through a client.
                var interceptor = InterceptorMiddleware()
                interceptor.onResponseData { data, _, _ in data + Data(" ".utf8) }
                var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
                configuration.cookieJar = CookieJar()
                // The verbose transcript runs over every field of the head, kept in memory (not printed).
                configuration.logger = Logger(label: "probe", factory: { _ in InMemoryLogHandler() })
                configuration.logger.logLevel = .trace
                let transport = RecordingTransport(HeadTransport(fields: fields), file: recordings.appendingPathComponent("\(index).json"))
                let client = APIClient(configuration: configuration, transport: transport,
                                       middleware: [LoggingMiddleware(style: .verbose), CachingMiddleware(), CoalescingMiddleware(), interceptor])
                // Twice (a hit, or a 304 merged) when the head is accepted; once when refused.
                for _ in 0..<(count <= HTTPFields.responseFieldLimit ? 2 : 1) {
                    tried += 1
                    do {
                        _ = try await client.send(Request<Data>(path: "/items"))
                        guard count <= HTTPFields.responseFieldLimit else {
                            print("case \(index): \(count) fields (shape \(shape)) answered"); exit(3)
                        }
                        succeeded += 1
                    } catch let error as APIError {
                        guard count > HTTPFields.responseFieldLimit, "\(error)".contains("more than 10000 header fields") else {
                            print("case \(index): \(count) fields (shape \(shape)): \(error)"); exit(4)
                        }
                        refused += 1
                    }
                }
            }
            print("heads near capacity: \(tried) tried / \(succeeded + refused) handled (\(succeeded) succeeded, \(refused) refused naming the limit)")
        }
    }
}
