import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// A hostile head that FoundationNetworking takes tens of seconds over (65,000 four-byte lines:
/// its copy of the header lines is quadratic, on the one queue all sessions share) cannot keep a
/// caller past its deadline. Each case runs in a process of its own (an exit test): what is
/// measured is the request's own deadline, not the pool of the hundreds of tests beside it, and
/// the parse FoundationNetworking goes on with after the deadline ends with the process.
@Suite("Hostile heads: the caller's deadline holds whatever the transport does underneath")
struct HostileHeadDeadlineTests {
    struct Failed: Error, CustomStringConvertible { var description: String }

    /// Sends `target` with a 2 s deadline over `kind` and fails unless the answer is a timeout (or
    /// the transport's own refusal of the head) within 2 s + 20 % + 1 s.
    static func expectDeadline(_ kind: TransportKind, _ target: String, query: [URLQueryItem], server: FaultServer) async throws {
        let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(2)), transport: kind.makeTransport())
        let started = ContinuousClock.now
        do {
            _ = try await client.send(Request<Data>(path: target, query: query))
            throw Failed(description: "\(kind): answered")
        } catch let error as APIError {
            let elapsed = started.duration(to: .now)
            // SwiftNIO refuses a head over 80 KiB itself (a network error, at once); URLSession
            // must end with the deadline.
            guard error.kind == .timeout || (kind == .asyncHTTPClient && error.kind == .network) else {
                throw Failed(description: "\(kind): \(error)")
            }
            guard elapsed < .milliseconds(3_400) else { throw Failed(description: "\(kind): answered after \(elapsed) (deadline 2 s)") }
        }
    }

    @Test("a 65,000-line head sent at once: the 2 s deadline holds on both transports (URLSession parses it for about 30 s)")
    func fastHostileHead() async {
        await #expect(processExitsWith: .success) {
            try await withFaultServer { (server: FaultServer) async throws in
                for kind in TransportKind.allCases {
                    try await HostileHeadDeadlineTests.expectDeadline(kind, "/short-headers", query: [.init(name: "n", value: "65000")], server: server)
                }
            }
        }
    }

    @Test("a 65,000-line head sent slowly (in 40 pieces, 100 ms apart): the 2 s deadline holds on both transports")
    func slowHostileHead() async {
        await #expect(processExitsWith: .success) {
            try await withFaultServer { (server: FaultServer) async throws in
                for kind in TransportKind.allCases {
                    try await HostileHeadDeadlineTests.expectDeadline(
                        kind, "/short-headers", query: [.init(name: "n", value: "65000"), .init(name: "pieces", value: "40"), .init(name: "ms", value: "100")],
                        server: server)
                }
            }
        }
    }

    @Test("during a hostile head on one AsyncHTTPClient request, a second request on the same client completes")
    func secondRequestCompletes() async {
        await #expect(processExitsWith: .success) {
            try await withFaultServer { (server: FaultServer) async throws in
                let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(20)), transport: TransportKind.asyncHTTPClient.makeTransport())
                let hostile = Task { try? await client.send(Request<Data>(path: "/short-headers", query: [.init(name: "n", value: "65000"), .init(name: "pieces", value: "40")])) }
                _ = try await client.send(Request<Data>(path: "/ok"))
                _ = await hostile.value
            }
        }
    }
}
