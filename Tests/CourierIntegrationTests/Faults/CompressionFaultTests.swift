import Courier
import CourierTestServer
import Foundation
import HTTPTypes
import Testing

/// The limit that matters for a compressed response is its decoded size; a coding Courier does
/// not decode is an error naming it, never bytes handed on as if decoded.
@Suite("Compressed responses")
struct CompressionFaultTests {
    @Test("a legitimate 2 MiB JSON body compressed ~300:1 is accepted", arguments: TransportKind.allCases)
    func highlyCompressibleJSON(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport())
            let data = try await client.send(Request<Data>(path: "/compressed-json", query: [.init(name: "kb", value: "2048")]))
            #expect(data.count >= 2 * 1024 * 1024)
            #expect(data.first == UInt8(ascii: "[") && data.last == UInt8(ascii: "]"))
        }
    }

    @Test("a decoded body over maxResponseSize is resourceTooLarge", arguments: TransportKind.allCases)
    func decodedSizeLimit(_ kind: TransportKind) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            var configuration = APIConfiguration(baseURL: server.baseURL)
            configuration.maxResponseSize = 1024 * 1024
            let client = APIClient(configuration: configuration, transport: kind.makeTransport())
            await #expect {
                try await client.send(Request<Data>(path: "/compressed-json", query: [.init(name: "kb", value: "2048")]))
            } throws: { error in
                guard let apiError = error as? APIError, apiError.kind == .resourceTooLarge, let limit = apiError.sizeLimit else { return false }
                return limit == 1024 * 1024
            }
        }
    }

    @Test("a coding Courier does not decode is an error naming it", arguments: TransportKind.allCases, ["br", "zstd", "x-unknown"])
    func undecodedCoding(_ kind: TransportKind, coding: String) async throws {
        try await withFaultServer { (server: FaultServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport())
            await #expect {
                try await client.send(Request<Data>(path: "/encoded", query: [.init(name: "coding", value: coding)]))
            } throws: { error in
                guard (error as? APIError)?.kind == .network else { return false }
                return "\(error)".contains(coding)
            }
        }
    }

    @Test("a download in a coding Courier does not decode is an error naming it, and leaves no file",
          arguments: TransportKind.allCases, ["br", "x-unknown"])
    func undecodedCodingDownload(_ kind: TransportKind, coding: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("courier-coding-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withFaultServer { (server: FaultServer) async throws in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: kind.makeTransport())
            await #expect {
                try await client.download(Request<Data>(path: "/encoded", query: [.init(name: "coding", value: coding)]),
                                          to: dir.appendingPathComponent("body"))
            } throws: { error in
                guard (error as? APIError)?.kind == .network else { return false }
                return "\(error)".contains(coding)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    @Test("only gzip and deflate are advertised", arguments: TransportKind.allCases)
    func advertisedCodings(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let echo = try await kind.client(for: server).send(Request<Echo>(path: "/echo"))
            let advertised = Set((echo.headers["accept-encoding"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            #if canImport(FoundationNetworking)
            let decoded: Set<String> = ["gzip", "deflate"]
            #else
            let decoded: Set<String> = kind == .urlSession ? ["gzip", "deflate", "br"] : ["gzip", "deflate"]   // Apple's URLSession decodes br
            #endif
            #expect(advertised.isSubset(of: decoded), "advertised: \(advertised)")
        }
    }
}
