import Courier
import CourierTestServer
import Foundation
import Testing

/// A download whose process is killed (SIGKILL: no cleanup, no last word) resumes in another
/// process from the last checkpoint's token, asking only for the rest.
// Serialized, as RangeResumeTests: the parent waits for its child on a thread of the
// cooperative pool.
@Suite("Resuming a download after its process was killed", .serialized)
struct ResumeAcrossProcessTests {
    static let size = 32 << 20

    @Test("a child process killed mid-download leaves its partial file and a token; this process resumes from them",
          arguments: TransportKind.allCases)
    func killedChild(_ kind: TransportKind) async throws {
        let directory = try Transfers.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A slow link (1 ms a 64 KiB chunk), so the child is killed well before the end.
        try await withRangeServer(.init(size: Self.size, seed: 9, chunkDelay: .milliseconds(1))) { server in
            // The child's output is not seen here: it speaks through the token file.
            await #expect(processExitsWith: .signal(SIGKILL)) { [port = server.port as Int, path = directory.path as String, transport = kind.rawValue as String] in
                let directory = URL(fileURLWithPath: path)
                let client = APIClient(configuration: APIConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: .seconds(60)),
                                       transport: TransportKind(rawValue: transport)!.makeTransport())
                let options = DownloadOptions(checkpointInterval: 2 << 20) { token in
                    guard token.bytesOnDisk >= 8 << 20 else { return }
                    // Kept as an app would keep it, then the process dies at once.
                    try? JSONEncoder().encode(token).write(to: directory.appendingPathComponent("token.json"), options: .atomic)
                    kill(getpid(), SIGKILL)
                }
                _ = try? await client.download(Request<Data>(path: "/file"), to: directory.appendingPathComponent("file.bin"), options: options)
            }
            let token = try JSONDecoder().decode(DownloadResumeToken.self, from: Data(contentsOf: directory.appendingPathComponent("token.json")))
            #expect(token.bytesOnDisk >= 8 << 20 && token.bytesOnDisk < Int64(Self.size))
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(token.partialFileName).path))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("file.bin").path))

            let client = APIClient(configuration: APIConfiguration(baseURL: server.baseURL, timeout: .seconds(60)), transport: kind.makeTransport())
            let destination = directory.appendingPathComponent("file.bin")
            let result = try await client.download(Request<Data>(path: "/file"), to: destination, resumingFrom: token)
            print("resume across processes [\(kind.rawValue)]: killed at \(token.bytesOnDisk) of \(Self.size) bytes (token), this process received \(result.bytesReceived)")
            #expect(server.stats.ranges.last == "bytes=\(token.bytesOnDisk)-")
            #expect(result.bytesReceived == Int64(Self.size) - token.bytesOnDisk)
            #expect(result.restarts == 0)
            #expect(try RangeContent.sha256Hex(ofFile: destination) == server.currentSHA256Hex)
            #expect(directoryContents(directory) == ["file.bin", "token.json"])
        }
    }
}
