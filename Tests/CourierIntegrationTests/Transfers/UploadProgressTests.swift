import Courier
import CourierTestServer
import Foundation
import Testing

/// Upload progress is what the transport has sent, not what the body handed over: while the
/// server has stopped reading, progress stops well short of 100 %.
@Suite("Upload progress from the transport")
struct UploadProgressTests {
    static let size = 32 * 1024 * 1024

    @Test("progress stays below 100 % while the server is not reading", arguments: TransportKind.allCases)
    func progressFollowsTheServer(_ kind: TransportKind) async throws {
        let dir = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("payload.bin")
        try await Transfers.writePayload(count: Self.size, to: file, checksummed: false)
        try await withTestServer { server in
            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL), transport: Transfers.transport(kind))
            let id = UUID().uuidString
            let log = ProgressLog()
            let upload = Task {
                try await client.upload(Request<TransferReceipt>(method: .put, path: "/transfers/upload/\(id)?stallAfter=1048576"),
                                        fromFile: file) { log.append($0) }
            }
            #expect(try await Transfers.eventually { server.transferStalled(id) })
            // The server reads no more; whatever the client reports now is all it can have sent.
            let stalled = try await Transfers.settled { log.last?.completedBytes ?? 0 }
            // URLSession: progress comes from didSendBodyData, and stopped at 5–7 MiB of 32 in
            // most runs, 17 MiB in one fresh-clone CI run beside the 64 MiB range tests (the
            // kernel's socket buffers grow with the load); before the fix it said 100 % at once. AsyncHTTPClient counts what its
            // connection took; on loopback the server's own socket and NIO buffers sometimes take
            // the whole body while its handler has stopped reading (one run reported 32 of 32 MiB,
            // others 8–18), so for it only the final and monotonic checks below hold.
            if kind == .urlSession {
                #expect(stalled < Int64(Self.size) * 3 / 4, "reported \(stalled) of \(Self.size) bytes while the server had read \(server.transferReceived(id))")
            }
            server.releaseTransfer(id)
            let receipt = try await upload.value
            #expect(receipt.bytes == "\(Self.size)")
            #expect(log.last == TransferProgress(completedBytes: Int64(Self.size), totalBytes: Int64(Self.size)))
            let reports = log.all
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        }
    }
}
