import Courier
import Foundation

/// The resumable-download step of the demo: the server cuts the first transfer of a 2 MiB file;
/// the client (with its `RetryMiddleware`) resumes with `Range` and `If-Range` instead of
/// starting over, and the file is the server's, byte for byte.
struct DemoDownloadScenario {
    let client: APIClient

    /// Runs the step; returns how many did not behave as expected.
    func run() async -> Int {
        print("\n=== A download that resumes after a cut ===")
        print("\n\u{25B6} Download /v1/downloads/archive.bin (2 MiB); the server drops the connection at 768 KiB")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let destination = directory.appendingPathComponent("archive.bin")
            let result = try await client.download(Request<Data>(path: "/v1/downloads/archive.bin"), to: destination)
            let ranges = try await client.send(Request<[String]>(path: "/v1/downloads/stats"))
            print("  \u{2190} \(result.response.status.code) after \(result.resumptions) resumption(s): \(result.byteCount) bytes on disk, \(result.bytesReceived) received")
            print("  the server saw: \(ranges.map { $0 == "-" ? "GET (whole file)" : "GET Range: \($0)" }.joined(separator: ", then "))")
            let identical = try Data(contentsOf: destination) == Data(DemoDownloadRoutes.content)
            print("  file identical to the server's: \(identical ? "yes" : "no")")
            // The resumption asks from the bytes on disk: the cut's offset, or a little before
            // it when the transport had not handed over the last bytes it read (AsyncHTTPClient).
            let resumedFrom = ranges.count == 2 ? Int(ranges[1].dropFirst(6).dropLast()) : nil
            guard identical, result.resumptions == 1, result.bytesReceived == Int64(DemoDownloadRoutes.size),
                  ranges.first == "-", let resumedFrom, resumedFrom > 0, resumedFrom <= DemoDownloadRoutes.cutAt else {
                print("  ✗ expected one resumption from the bytes on disk (at most \(DemoDownloadRoutes.cutAt)) and the whole file, each byte received once")
                return 1
            }
            return 0
        } catch {
            print("  \u{2190} \(error)")
            return 1
        }
    }
}
