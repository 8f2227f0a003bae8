import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// A response head's field count is bounded on both transports, after any splitting: a server
/// cannot make Courier hold more fields than `HTTPFields` can (65,534 — one more traps). The
/// probes that trapped before run in child processes (exit tests).
@Suite("Response heads: at most 10,000 fields on every transport, never a trap")
struct HeadCapacityIntegrationTests {
    struct ProbeFailed: Error, CustomStringConvertible { var description: String }

    /// The network error that names the limit.
    static func isLimitError(_ error: any Error) -> Bool {
        guard let error = error as? APIError, error.kind == .network else { return false }
        return "\(error)".contains("more than 10000 header fields")
    }

    @Test("a head of 10,001 fields is a network error naming the limit; 9,990 are accepted", arguments: TransportKind.allCases)
    func fieldLimit(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(120)), transport: kind.makeTransport())
            await #expect {
                try await client.send(Request<Data>(path: "/many-headers", query: [.init(name: "n", value: "10001")]))
            } throws: { Self.isLimitError($0) }
            let answer = try await client.response(for: Request<Data>(path: "/many-headers", query: [.init(name: "n", value: "9990")]))
            #expect(answer.response.headerFields.count >= 9_990)
        }
    }

    @Test("three folded Set-Cookie lines of 23,000 cookies each: a clear error, not a trap (URLSession splits them)")
    func foldedSetCookie() async {
        await #expect(processExitsWith: .success) {
            try await withFaultServer { (server: FaultServer) async throws in
                for kind in TransportKind.allCases {
                    var configuration = APIConfiguration(baseURL: server.baseURL, timeout: .seconds(120))
                    configuration.cookieJar = CookieJar()
                    let client = APIClient(configuration: configuration, transport: kind.makeTransport(), middleware: [CachingMiddleware()])
                    do {
                        _ = try await client.send(Request<Data>(path: "/folded-cookies"))
                        // AsyncHTTPClient hands on three fields, as the wire had them.
                        guard kind == .asyncHTTPClient else { throw ProbeFailed(description: "\(kind): 69,000 cookies answered") }
                    } catch let error as APIError {
                        guard kind == .asyncHTTPClient || HeadCapacityIntegrationTests.isLimitError(error) else {
                            throw ProbeFailed(description: "\(kind): \(error)")
                        }
                    }
                }
            }
        }
    }

    @Test("a head past the limit through the cache, the coalescer and the cookie jar: a clear error, not a trap")
    func headPastTheLimitThroughMiddleware() async {
        await #expect(processExitsWith: .success) {
            try await withFaultServer { (server: FaultServer) async throws in
                // SwiftNIO refuses a head of more than 80 KiB itself (65,534 short fields are
                // 900 KiB); FoundationNetworking takes about a minute over one that size. Both
                // are probed just past Courier's limit, where each hands the head on.
                for kind in TransportKind.allCases {
                    var configuration = APIConfiguration(baseURL: server.baseURL, timeout: .seconds(120))
                    configuration.cookieJar = CookieJar()
                    let client = APIClient(configuration: configuration, transport: kind.makeTransport(),
                                           middleware: [CachingMiddleware(), CoalescingMiddleware(), LoggingMiddleware()])
                    do {
                        _ = try await client.send(Request<Data>(path: "/many-headers", query: [.init(name: "n", value: "10005")]))
                        throw ProbeFailed(description: "\(kind): answered")
                    } catch let error as APIError {
                        guard HeadCapacityIntegrationTests.isLimitError(error) else { throw ProbeFailed(description: "\(kind): \(error)") }
                    }
                }
            }
        }
    }
}
