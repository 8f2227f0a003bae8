import Courier
@testable import CourierURLSession
import Foundation
import OpenAPIRuntime
import Testing

/// The temporary files URLSession uploads from hold the request body (a form's files and
/// fields, a spooled stream): no other local user may read them.
@Suite("URLSession upload plans")
struct UploadPlanTests {
    private static func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    private static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("a multipart form written for upload is owner-only (0600)")
    func multipartFileIsOwnerOnly() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try UploadPlan.writeTemporaryFile([.bytes(Array("secret field".utf8))], in: directory)
        #expect(try Self.mode(of: url) == 0o600)
        #expect(try Data(contentsOf: url) == Data("secret field".utf8))
    }

    @Test("a stream of unknown length spooled to disk is owner-only (0600)")
    func spooledStreamIsOwnerOnly() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            for _ in 0..<4 { continuation.yield(ArraySlice(repeating: 0x61, count: 64)) }
            continuation.finish()
        }
        let body = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
        let plan = try await UploadPlan.make(for: body, description: nil, maxInMemory: 16, temporaryDirectory: directory)
        guard case .file(let url, temporary: true) = plan else {
            Issue.record("expected a spooled file, got \(plan)")
            return
        }
        #expect(try Self.mode(of: url) == 0o600)
        #expect(try Data(contentsOf: url).count == 256)
    }

    @Test("a deadline already past fails at once with a timeout that does not blame the body")
    func deadlineAlreadyPast() async throws {
        let body = HTTPBody(Data("in memory".utf8))
        let error = await #expect(throws: TransportError.self) {
            _ = try await URLSessionTransport.plan(for: body, description: nil, maxInMemory: 1 << 20,
                                                   temporaryDirectory: FileManager.default.temporaryDirectory,
                                                   deadline: .now - .seconds(1))
        }
        #expect(error?.kind == .timeout)
        #expect(error?.message.contains("stopped yielding") == false)
        #expect(error?.requestMayHaveBeenSent == false)
    }

    @Test("a temporary file is never written over one already there")
    func neverReplacesAFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let existing = directory.appendingPathComponent("taken")
        try Data("theirs".utf8).write(to: existing)
        #expect(throws: (any Error).self) { try BodySegment.write([.bytes([1])], to: existing) }
        #expect(try Data(contentsOf: existing) == Data("theirs".utf8))
    }
}
