import Foundation

/// Memory figures, each measured in a fresh child process (`--probe CLIENT WORKLOAD PORT`) so
/// that one client's peak never hides another's: `ru_maxrss` only ever grows.
///
/// - `large`: after a warm-up with small requests, 20 sequential GETs of the 1 MiB body; the
///   figure is the peak resident memory (`VmHWM`, reset just before) above the resident memory
///   before them (target: ≤ 2 MiB).
/// - `flat`: rounds of 10,000 JSON requests at 64 in flight; resident memory and open file
///   descriptors after each round (target: no growth from round to round, no leaked sockets).
enum MemoryProbe {
    /// What one probe measured.
    struct Result: Codable, Sendable {
        /// The scenario key, e.g. `ahc.courier`.
        var client: String
        /// `large` or `flat`.
        var workload: String
        /// Resident memory before the measured requests, in bytes.
        var baselineRSS: Int
        /// Peak resident memory at the end, in bytes.
        var peakRSS: Int
        /// Resident memory after each round (`flat`), in bytes.
        var roundRSS: [Int]
        /// Open file descriptors after each round (`flat`).
        var roundOpenFiles: [Int]

        /// The peak above the baseline, in bytes.
        var peakAboveBaseline: Int { max(0, peakRSS - baselineRSS) }
    }

    /// The clients probed (scenario keys).
    static let clients = ["ahc.raw", "ahc.courier", "urlsession.raw", "urlsession.courier",
                          "ahc.default.raw", "ahc.default.courier", "urlsession.default.raw"]
    /// Rounds of the `flat` workload.
    static let flatRounds = 5

    /// Runs every probe of `clients` as a child process and collects their results.
    static func runAll(port: Int, clients: [String], log: (String) -> Void) throws -> [Result] {
        var results: [Result] = []
        for workload in ["large", "flat"] {
            for client in clients {
                let output = try ServerProcess.runChild(["--probe", client, workload, String(port)])
                guard let line = output.split(separator: "\n").last,
                      let result = try? JSONDecoder().decode(Result.self, from: Data(line.utf8)) else {
                    throw OptionsError("the \(client) \(workload) probe printed no result")
                }
                log("probe \(client) \(workload): peak +\(result.peakAboveBaseline / 1024) KiB, RSS by round \(result.roundRSS.map { $0 / 1024 }) KiB, fds \(result.roundOpenFiles)")
                results.append(result)
            }
        }
        return results
    }

    /// The child side: measures one client on one workload and prints the result as JSON.
    static func run(client name: String, workload: String, port: Int) async throws {
        let baseURL = URL(string: "http://127.0.0.1:\(port)")!
        let clients = try ProbeClients(name: name, baseURL: baseURL)
        for _ in 0..<20 { try await clients.users() }
        ResourceUsage.resetPeak()
        var result = Result(client: name, workload: workload, baselineRSS: ResourceUsage.currentRSS(), peakRSS: 0, roundRSS: [], roundOpenFiles: [])
        switch workload {
        case "large":
            for _ in 0..<20 {
                let count = try await clients.large()
                guard count == Fixtures.largeSize else { throw UnexpectedAnswer(description: "large body of \(count) bytes") }
            }
        case "flat":
            for _ in 0..<flatRounds {
                try await Runner.concurrently(requests: 10_000, inFlight: 64, clients.users)
                result.roundRSS.append(ResourceUsage.currentRSS())
                result.roundOpenFiles.append(ResourceUsage.openFileDescriptors())
            }
        default:
            throw OptionsError("unknown probe workload \(workload)")
        }
        result.peakRSS = ResourceUsage.now().peakRSS
        try await clients.shutdown()
        let data = try JSONEncoder().encode(result)
        print(String(decoding: data, as: UTF8.self))
    }
}
