import Foundation

extension Report {
    /// One JSON object on one line: `ratios` (medians, keyed `ahc.sequential.cpu`…,
    /// `middleware.cpu`), `ratioRanges` (min–max), `targets` (met or not), `scenarios` (the raw
    /// figures per scenario and mode, with the connections each run opened), `memory` (the
    /// probes), `peakDeltas` (a pair's peak RSS at 64 in flight, Courier − raw, in bytes) and
    /// `pairs` (each pair's sides, for `--compare`).
    func jsonLine() throws -> String {
        var object: [String: Any] = [:]
        var ratios: [String: Double] = [:]
        var ranges: [String: [Double]] = [:]
        var targets: [String: Bool] = [:]
        for ratio in self.ratios() {
            ratios[ratio.key] = Self.rounded(ratio.summary.median)
            ranges[ratio.key] = [Self.rounded(ratio.summary.min), Self.rounded(ratio.summary.max)]
            if let met = ratio.met, ratio.key != "middleware.cpu" { targets[ratio.key] = met }
        }
        for probe in memory where probe.workload == "large" {
            targets["\(probe.client).large.peakWithin2xBody"] = probe.peakAboveBaseline <= 2 * Fixtures.largeSize
        }
        object["ratios"] = ratios
        object["ratioRanges"] = ranges
        for probe in cacheMemory where probe.cached {
            targets["cache.memory.storeWithinLimits"] = probe.storeWithinLimits
        }
        object["targets"] = targets
        object["cacheMemory"] = cacheMemoryJSON()
        var figures: [String: Any] = [:]
        for scenario in scenarios {
            var modes: [String: Any] = [:]
            for mode in RunMode.allCases {
                let runs = results[scenario.key]?[mode] ?? []
                modes[mode.rawValue] = [
                    "cpuMicrosPerRequest": Self.json(summary(scenario.key, mode) { $0.cpuMicros }),
                    "systemCPUMicrosPerRequest": Self.json(summary(scenario.key, mode) { $0.systemCPUMicros }),
                    "contextSwitchesPerRequest": Self.json(summary(scenario.key, mode) { $0.contextSwitches }),
                    "requestsPerSecond": Self.json(summary(scenario.key, mode) { $0.requestsPerSecond }),
                    "peakRSSBytes": runs.map(\.peakRSS).max() ?? 0,
                    "rssAfterRoundBytes": runs.map(\.currentRSS),
                    "openFilesAfterRound": runs.map(\.openFiles),
                    "connectionsOpened": runs.compactMap(\.connectionsOpened),
                ]
            }
            figures[scenario.key] = modes
        }
        object["scenarios"] = figures
        object["memory"] = memory.map { probe -> [String: Any] in
            ["client": probe.client, "workload": probe.workload, "baselineRSSBytes": probe.baselineRSS,
             "peakRSSBytes": probe.peakRSS, "peakAboveBaselineBytes": probe.peakAboveBaseline,
             "rssAfterRoundBytes": probe.roundRSS, "openFilesAfterRound": probe.roundOpenFiles]
        }
        object["peakDeltas"] = Dictionary(uniqueKeysWithValues: peakDeltas().map { ($0.pair, $0.bytes) })
        object["pairs"] = Dictionary(uniqueKeysWithValues: pairs.map { pair in
            (pair.key, ["subject": pair.subject, "baseline": pair.baseline, "defaultVersusDefault": pair.isDefaultVersusDefault] as [String: Any])
        })
        object["settings"] = ["rounds": options.processes ?? options.rounds, "roundsInOwnProcesses": options.processes != nil,
                              "sequentialRequests": options.sequentialRequests,
                              "concurrentRequests": options.concurrentRequests, "inFlight": options.inFlight, "quick": options.quick]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    private static func json(_ summary: Summary) -> [String: Double] {
        ["median": rounded(summary.median), "min": rounded(summary.min), "max": rounded(summary.max)]
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 10_000).rounded() / 10_000
    }
}
