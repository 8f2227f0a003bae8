import Courier
import CourierAsyncHTTPClient
import CourierTestServer
import CourierURLSession
import Foundation
import OpenAPIRuntime

/// `courier-bench --transfers`: how much a large transfer grows the process, over both
/// transports, each case measured in a fresh child process (`--transfer-probe`) so that no
/// case's peak hides another's.
///
/// The cases, 256 MiB each by default (`--transfer-mib`):
/// - `upload`: `upload(_:fromFile:)` of a file to a server that reads the body to its end;
/// - `stream`: the same upload of a `.stream` body of unknown length generated in 64 KiB chunks
///   (AsyncHTTPClient sends it as it is produced; URLSession writes it to a temporary file first);
/// - `download`: `download(_:to:)` of a body the server generates as it sends it;
/// - `stalled`: `bytes(for:)` on such a body, one chunk read, then no reading for 3 s — with
///   back-pressure the transfer pauses and memory stays flat;
/// - `bomb`: `send` of a deflate bomb that inflates to that size, against a 1 MiB
///   `maxResponseSize`: refused at the limit, and what inflating held before the refusal;
/// - `resumable`: `upload(_:fromFile:options:)` of the file to an ``UploadServer`` (started in
///   this process) that cuts the upload 10 times at seeded offsets: resumed each time from the
///   server's offset, the file read from disk from there.
///
/// The figure is the peak resident memory (`VmHWM`, reset after a warm-up) above the resident
/// memory before the transfer. The target (issue 13) is ≤ 16 MiB for every case on both
/// transports.
enum TransferProbe {
    /// What one case measured in its child process.
    struct Result: Codable, Sendable {
        /// `upload`, `stream`, `download` or `stalled`.
        var transfer: String
        /// `ahc` or `urlsession`.
        var transport: String
        /// Resident memory before the transfer, in bytes.
        var baselineRSS: Int
        /// Peak resident memory during it, in bytes.
        var peakRSS: Int
        /// Bytes moved (for `stalled`: the bytes read before the stall).
        var bytesMoved: Int64
        /// Why the transfer failed, when it did.
        var error: String?

        /// The peak above the baseline, in bytes.
        var growth: Int { max(0, peakRSS - baselineRSS) }
    }

    /// The cases, in the order they run.
    static let transfers = ["upload", "stream", "download", "stalled", "bomb", "resumable"]
    /// How many times the upload server cuts the `resumable` case (at seeded offsets).
    static let resumableCuts = 10
    /// The `maxResponseSize` of the `bomb` case.
    static let bombLimit = 1 << 20
    /// The transports, by short name.
    static let transports = ["ahc", "urlsession"]
    /// How long the `stalled` reader stops reading.
    static let stall: Duration = .seconds(3)

    /// Starts the server and runs every case `options.transferRuns` times, each in a child
    /// process; prints a table (and a JSON line with `--json`).
    static func runAll(_ options: Options) async throws {
        let log: (String) -> Void = { FileHandle.standardError.write(Data("[courier-bench] \($0)\n".utf8)) }
        let server = try options.serverPort.map(ServerProcess.external) ?? ServerProcess.start()
        defer { server.stop() }
        // The `resumable` case's server (draft-ietf-httpbis-resumable-upload-15, cutting at
        // seeded offsets), in this process: only the child's memory is measured.
        let uploads = try await UploadServer.start(.init(size: options.transferBytes, cuts: resumableCuts))
        log("transfers of \(options.transferBytes >> 20) MiB, \(options.transferRuns) runs per case, server on port \(server.port)")
        var results: [Result] = []
        for run in 1...options.transferRuns {
            for transfer in transfers {
                for transport in transports {
                    let port = transfer == "resumable" ? uploads.port : server.port
                    let output = try ServerProcess.runChild(["--transfer-probe", transfer, transport, String(port), String(options.transferBytes)])
                    guard let line = output.split(separator: "\n").last,
                          let result = try? JSONDecoder().decode(Result.self, from: Data(line.utf8)) else {
                        throw OptionsError("the \(transfer) \(transport) probe printed no result")
                    }
                    log("run \(run): \(transfer) over \(transport): +\(result.growth >> 10) KiB, \(result.bytesMoved) bytes\(result.error.map { ", failed: \($0)" } ?? "")")
                    results.append(result)
                }
            }
        }
        await uploads.stop()
        print(table(results, bytes: options.transferBytes))
        if options.json {
            let data = try JSONEncoder().encode(results)
            print(String(decoding: data, as: UTF8.self))
        }
    }

    /// The results as a Markdown table: growth median (min–max) per case and transport.
    static func table(_ results: [Result], bytes: Int) -> String {
        var lines = ["Peak resident memory growth during one transfer of \(bytes >> 20) MiB (own process per run; target ≤ 16 MiB)", "",
                     "| Case | Transport | Growth, median (min–max) | Runs | Failures |", "| --- | --- | ---: | ---: | --- |"]
        for transfer in transfers {
            for transport in transports {
                let runs = results.filter { $0.transfer == transfer && $0.transport == transport }
                let growth = Summary(runs.filter { $0.error == nil }.map { Double($0.growth) / 1_048_576 })
                let failures = Set(runs.compactMap(\.error)).map { String($0.prefix(160)) }.joined(separator: "; ")
                let figure = runs.allSatisfy { $0.error != nil } ? "—" : "\(Report.range(growth, 1)) MiB"
                let label = ["upload": "upload(_:fromFile:)", "stream": "upload of a .stream body (unknown length)",
                             "download": "download(_:to:)", "stalled": "bytes(for:), reader stalled 3 s",
                             "bomb": "deflate bomb (zeros, ~1,000:1) against a 1 MiB maxResponseSize",
                             "resumable": "resumable upload(_:fromFile:options:), cut \(resumableCuts) times"][transfer] ?? transfer
                lines.append("| \(label) | \(transport) | \(figure) | \(runs.count) | \(failures.isEmpty ? "none" : failures) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The child side: one case over one transport; prints its result as JSON and never fails
    /// (a failed transfer is a result too).
    static func run(transfer: String, transport: String, port: Int, bytes: Int) async throws {
        let baseURL = URL(string: "http://127.0.0.1:\(port)")!
        // The resumable case resumes by a RetryMiddleware (short backoffs) against the upload
        // server, warmed up with OPTIONS; the others talk to the benchmark's server.
        let retry = RetryMiddleware(policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), maxDelay: .milliseconds(10), jitter: .none))
        let client = APIClient(configuration: APIConfiguration(baseURL: baseURL),
                               transport: transport == "urlsession" ? URLSessionTransport() as any Transport : AsyncHTTPClientTransport(),
                               middleware: transfer == "resumable" ? [retry] : [])
        for _ in 0..<5 {
            if transfer == "resumable" {
                _ = try await client.data(for: Request<Data>(method: .options, path: "/files"))
            } else {
                try await client.send(ListUsers()).check()
            }
        }
        let options = RequestOptions(timeout: .seconds(600))
        let generated = Request<Data>(path: RequestPath(verbatim: Fixtures.generatedPath),
                                      query: [URLQueryItem(name: "bytes", value: String(bytes))], options: options)
        let directory = FileManager.default.temporaryDirectory
        let file = directory.appendingPathComponent("courier-bench-\(transfer)-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: file) }
        if transfer == "upload" || transfer == "resumable" {
            // A sparse file: reading it costs no disk, and page cache is not resident memory.
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw OptionsError("cannot create \(file.path)") }
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(bytes))
            try handle.close()
        }
        ResourceUsage.resetPeak()
        var result = Result(transfer: transfer, transport: transport, baselineRSS: ResourceUsage.currentRSS(), peakRSS: 0, bytesMoved: 0)
        do {
            switch transfer {
            case "upload":
                let upload = Request<Data>(method: .post, path: RequestPath(verbatim: Fixtures.uploadPath), options: options)
                let answer = try await client.upload(upload, fromFile: file) { _ in }
                result.bytesMoved = Int64(String(decoding: answer, as: UTF8.self)) ?? -1
            case "stream":
                let chunk = ArraySlice([UInt8](repeating: UInt8(ascii: "s"), count: 64 * 1024))
                let produced = Locked(0)
                let source = AsyncThrowingStream<ArraySlice<UInt8>, any Error> {
                    let size = produced.withLock { sent -> Int in
                        let size = min(chunk.count, bytes - sent)
                        sent += size
                        return size
                    }
                    return size > 0 ? chunk.prefix(size) : nil
                }
                let upload = Request<Data>(method: .post, path: RequestPath(verbatim: Fixtures.uploadPath),
                                           body: .stream(HTTPBody(source, length: .unknown, iterationBehavior: .single),
                                                         contentType: "application/octet-stream"),
                                           options: options)
                let answer = try await client.send(upload)
                result.bytesMoved = Int64(String(decoding: answer, as: UTF8.self)) ?? -1
            case "resumable":
                struct Stored: Decodable { var size: Int64 }
                let upload = Request<Stored>(method: .post, path: "/files", options: options)
                result.bytesMoved = try await client.upload(upload, fromFile: file, options: ResumableUploadOptions(requirement: .required)).size
            case "download":
                result.bytesMoved = try await client.download(generated, to: file).byteCount
            case "bomb":
                // Refused at the size limit is the expected outcome; the figure is what inflating
                // cost in memory before the limit stopped it.
                let limited = Request<Data>(path: RequestPath(verbatim: Fixtures.bombPath),
                                            query: [URLQueryItem(name: "bytes", value: String(bytes))],
                                            options: RequestOptions(timeout: .seconds(600), maxResponseSize: bombLimit))
                do {
                    _ = try await client.send(limited)
                    result.error = "the bomb was accepted"
                } catch let error as APIError where error.kind == .resourceTooLarge {
                    result.bytesMoved = Int64(bytes)
                }
            case "stalled":
                let stream = try await client.bytes(for: generated)
                var iterator = stream.makeAsyncIterator()
                result.bytesMoved = Int64(try await iterator.next()?.count ?? 0)
                try await Task.sleep(for: stall)
                result.peakRSS = ResourceUsage.now().peakRSS
                _ = iterator  // held, unread, until the peak is taken
            default:
                throw OptionsError("unknown transfer \(transfer)")
            }
            if transfer != "stalled", result.bytesMoved != Int64(bytes) {
                result.error = "moved \(result.bytesMoved) of \(bytes) bytes"
            }
        } catch {
            result.error = String(describing: error).replacingOccurrences(of: "\n", with: " ")
        }
        if result.peakRSS == 0 { result.peakRSS = ResourceUsage.now().peakRSS }
        let data = try JSONEncoder().encode(result)
        print(String(decoding: data, as: UTF8.self))
    }
}
