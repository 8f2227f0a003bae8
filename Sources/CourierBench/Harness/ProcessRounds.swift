import Foundation

/// `--processes N`: each round in a fresh child process against the same server.
///
/// Why: at 64 in flight, an AsyncHTTPClient client's CPU per request depends on how its
/// connections are spread over the event loops — in five fresh processes of one scenario,
/// 107–109 µs per request with 1.1 context switches (the loops share the work), 117–118 µs with
/// 1.65 (one loop carries most), 132 µs with 2.6 (one carries all; `perf` thread samples per
/// event loop, BENCHMARKS.md). The spread is drawn when the pool opens its connections and kept for the
/// life of the process, so every round in one process repeats the same draw, for each client on
/// its own: Courier's shared client and `HTTPClient.shared` draw independently. Rounds in fresh
/// processes draw again each time, and the median over them is the comparison.
enum ProcessRounds {
    /// Runs `count` rounds, each as `courier-bench --port … --rounds 1 --emit-measurements` with
    /// `options`' selection and sizes, and gathers their measurements in round order.
    static func run(_ count: Int, options: Options, port: Int, log: (String) -> Void) throws -> Rounds.Results {
        var arguments = ["--port", String(port), "--rounds", "1", "--emit-measurements", "--no-memory",
                         "--sequential", String(options.sequentialRequests),
                         "--concurrent", String(options.concurrentRequests), "--in-flight", String(options.inFlight)]
        if options.sameHeaders { arguments.append("--same-headers") }
        if let families = options.families {
            arguments += [options.exactSelection ? "--exactly" : "--only", families.sorted().joined(separator: ",")]
        }
        if let limit = options.maxConnectionsPerHost { arguments += ["--max-connections-per-host", String(limit)] }
        var results: Rounds.Results = [:]
        for round in 1...count {
            // The order of the scenarios rotates from process to process, as from round to round.
            let output = try ServerProcess.runChild(arguments + ["--first-round", String(round)])
            guard let line = output.split(separator: "\n").last,
                  let measured = try? JSONDecoder().decode(Rounds.Results.self, from: Data(line.utf8)) else {
                throw OptionsError("round \(round)'s process printed no measurements")
            }
            for (key, modes) in measured {
                for (mode, runs) in modes { results[key, default: [:]][mode, default: []] += runs }
            }
            log("round \(round)/\(count) done in its own process")
        }
        return results
    }
}
