import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// Servers that misbehave on purpose: every failure is a typed error, never a partial success,
/// a crash or a hang, on both transports.
@Suite("Fault injection")
struct FaultTests {
    private func client(_ kind: TransportKind, _ server: FaultServer, configure: (inout APIConfiguration) -> Void = { _ in }) -> APIClient {
        var configuration = APIConfiguration(baseURL: server.baseURL, timeout: .seconds(60))  // room for a loaded CI machine (it has stalled tests for 20 s)
        configure(&configuration)
        return APIClient(configuration: configuration, transport: kind.makeTransport())
    }

    private static func isNetworkOrTimeout(_ error: any Error) -> Bool {
        switch (error as? APIError)?.kind {
        case .network?, .timeout?: return true
        default: return false
        }
    }

    @Test("a body shorter than its Content-Length is an error, not a partial success", arguments: TransportKind.allCases)
    func truncatedBody(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            await #expect { try await client(kind, server).send(Request<Data>(path: "/truncate")) } throws: { Self.isNetworkOrTimeout($0) }
        }
    }

    @Test("a connection reset mid-body is an error", arguments: TransportKind.allCases)
    func resetMidBody(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            await #expect { try await client(kind, server).send(Request<Data>(path: "/reset")) } throws: { Self.isNetworkOrTimeout($0) }
        }
    }

    @Test("a connection closed or reset before the head is a network error", arguments: TransportKind.allCases)
    func closedBeforeHead(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = client(kind, server)
            await #expect { try await client.send(Request<Data>(path: "/reset-before-head")) } throws: { Self.isNetworkOrTimeout($0) }
            await #expect { try await client.send(Request<Data>(path: "/close-before-head")) } throws: { Self.isNetworkOrTimeout($0) }
            #expect(try await client.send(Request<Data>(path: "/ok")).count == 11)
        }
    }

    @Test("a server that drips bytes is cut off at the deadline", arguments: TransportKind.allCases)
    func drip(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = client(kind, server) { $0.timeout = .milliseconds(800) }
            let elapsed = await ContinuousClock().measure {
                await #expect {
                    // 2,000 bytes at one per 100 ms would take 200 s; the deadline is 0.8 s.
                    try await client.send(Request<Data>(path: "/drip", query: [.init(name: "ms", value: "100"), .init(name: "bytes", value: "2000")]))
                } throws: { error in
                    guard let apiError = error as? APIError, apiError.kind == .timeout else { return false }
                    return apiError.timeLimit == .milliseconds(800)
                }
            }
            #expect(elapsed < .seconds(90), "a hang guard, not a timing measurement")
        }
    }

    @Test("a gzip bomb ends in an error at the size limit", arguments: TransportKind.allCases)
    func gzipBomb(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            // A deadline far enough that a loaded CI run (this test shares two cores with the
            // rest of the suite, and inflating 10 MiB is real work) ends at the size limit, which
            // is what is tested, rather than at the clock.
            let client = client(kind, server) {
                $0.maxResponseSize = 10 * 1024 * 1024
                $0.timeout = .seconds(60)
            }
            let elapsed = await ContinuousClock().measure {
                await #expect {
                    try await client.send(Request<Data>(path: "/bomb", query: [.init(name: "mb", value: "100")]))
                } throws: { error in
                    print("gzip bomb [\(kind.rawValue)]: \(error)")
                    // The decoded size against maxResponseSize, on both transports.
                    guard let apiError = error as? APIError, apiError.kind == .resourceTooLarge, let limit = apiError.sizeLimit else { return false }
                    return limit == 10 * 1024 * 1024
                }
            }
            print("gzip bomb [\(kind.rawValue)]: 100 MB bomb refused after \(elapsed); peak RSS of the test process \(String(format: "%.0f", SoakTests.peakRSSMiB())) MiB")
        }
    }

    @Test("stacked Content-Encodings are refused from two layers on, as a network error naming them",
          arguments: TransportKind.allCases, [2, 5, 10])
    func stackedEncodings(_ kind: TransportKind, layers: Int) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = client(kind, server)
            await #expect {
                try await client.send(Request<Data>(path: "/stacked", query: [.init(name: "layers", value: "\(layers)")]))
            } throws: { error in
                guard (error as? APIError)?.kind == .network else { return false }
                let text = "\(error)"
                #if canImport(FoundationNetworking)
                // Over URLSession on Linux, libcurl refuses a stack past its own limit (5 layers,
                // or fewer in newer versions) before the head reaches the transport, in its own
                // words ("Reject response due to [more than] N content encodings").
                if kind == .urlSession, text.contains("content encodings") { return true }
                #endif
                return text.contains("gzip, gzip")
            }
            // One layer is decoded.
            let one = try await client.send(Request<Data>(path: "/stacked", query: [.init(name: "layers", value: "1")]))
            #expect(String(decoding: one, as: UTF8.self) == #"{"ok":true}"#)
        }
    }

    @Test("a 204 whose head names stacked codings is answered, not refused: no body follows to decode", arguments: TransportKind.allCases)
    func stackedEncodingsWithoutBody(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = client(kind, server)
            let response = try await client.response(for: Request<Void>(path: "/no-content-stacked"))
            #expect(response.response.status.code == 204)
        }
    }

    @Test("a declared Content-Length over the limit fails at the head, while the body stalls", arguments: TransportKind.allCases)
    func declaredLengthOverLimitWithStalledBody(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            // The server declares 1 GiB, sends 100 bytes and then nothing: only the head can end
            // this request before its 60 s deadline.
            let client = client(kind, server) { $0.maxResponseSize = 100_000 }
            let started = ContinuousClock.now
            await #expect {
                try await client.send(Request<Data>(path: "/declared-stall"))
            } throws: { error in
                guard let apiError = error as? APIError else { return false }
                return apiError.kind == .resourceTooLarge && apiError.sizeLimit == 100_000
            }
            // No timing assertion beyond "not the deadline": a loaded machine may be slow.
            #expect(ContinuousClock.now - started < .seconds(50), "a hang guard: the deadline is 60 s")
        }
    }

    @Test("huge and numerous response headers are an error, not a crash", arguments: TransportKind.allCases)
    func hugeHeaders(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = client(kind, server)
            do { _ = try await client.send(Request<Data>(path: "/huge-header", query: [.init(name: "kb", value: "1024")])) } catch {
                #expect(error is APIError)
            }
            do { _ = try await client.send(Request<Data>(path: "/many-headers", query: [.init(name: "n", value: "50000")])) } catch {
                #expect(error is APIError)
            }
        }
    }

    @Test("hostile Location headers are refused", arguments: TransportKind.allCases, ["javascript:alert(1)", "http://[::1", "ftp://127.0.0.1/x", "http://user:pw@127.0.0.1/x"])
    func hostileLocation(_ kind: TransportKind, _ location: String) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = client(kind, server)
            await #expect {
                try await client.send(Request<Data>(path: "/location", query: [.init(name: "to", value: location)]))
            } throws: { error in
                // Courier refuses the redirect (RedirectError); FoundationNetworking fails some
                // unparsable Locations itself before asking. Either way: a typed network error
                // that does not repeat the credentials.
                guard let apiError = error as? APIError, apiError.kind == .network, let underlying = apiError.underlyingError else { return false }
                let text = "\(error)".replacingOccurrences(of: "user%3Apw%40", with: "")   // the request's own query
                return (underlying is RedirectError || kind == .urlSession) && !text.contains("pw@")
            }
        }
    }

    @Test("a protocol-relative Location to another host drops credentials", arguments: TransportKind.allCases)
    func protocolRelativeLocation(_ kind: TransportKind) async throws {
        try await withFaultServer { (origin: FaultServer) async throws in
            try await withTestServer { (other: TestServer) async throws in
                let client = client(kind, origin)
                let echo = try await client.send(Request<Echo>(
                    path: "/location", query: [.init(name: "to", value: "//localhost:\(other.port)/headers")],
                    headers: [.authorization: "Bearer secret", .cookie: "a=b"]))
                #expect(echo.headers["authorization"] == nil)
                #expect(echo.headers["cookie"] == nil)
            }
        }
    }
}

/// A pooled keep-alive connection that the server closed while it sat idle.
@Suite("Dead pooled connections")
struct DeadPooledConnectionTests {
    @Test("the next request after the server dropped an idle connection succeeds, for GET and POST", arguments: TransportKind.allCases)
    func staleConnection(_ kind: TransportKind) async throws {
        let server = try await FaultServer.start()
        do {
            // 120 s: a loaded debug run has held one of these requests past 30 s.
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(120)), transport: kind.makeTransport())
            for method: HTTPRequest.Method in [.get, .post, .get] {
                _ = try await client.send(Request<Data>(method: method, path: "/ok-then-close", query: [.init(name: "ms", value: "20")]))
                try await Task.sleep(for: .milliseconds(400))   // the server closes the idle connection meanwhile (room for a loaded 2-core run)
            }
            // Every request reached the server exactly once: a stale connection was detected
            // (or the unsent request moved to a new one), never a request sent twice.
            #expect(server.requestCount == 3)
            #expect(server.connectionCount >= 2)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
