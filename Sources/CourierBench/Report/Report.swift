import Foundation

/// The benchmark's figures, summarised: medians with min–max per scenario and mode, and the
/// Courier/raw ratios computed round by round (each round's scenarios ran back to back, so a
/// ratio of the same round cancels most of the machine's noise).
struct Report {
    /// The run's settings.
    let options: Options
    /// The scenarios measured, in table order.
    let scenarios: [Scenario]
    /// Every measurement of every round.
    let results: Rounds.Results
    /// The ratios to report.
    let pairs: [Pair]
    /// The memory probes' results (empty with `--quick` or `--no-memory`).
    let memory: [MemoryProbe.Result]
    /// The memory store's probes, with and without the cache (empty with `--quick`,
    /// `--no-memory`, or without the cache family).
    var cacheMemory: [CacheMemoryProbe.Result] = []

    /// A ratio's median and spread, with whether it meets its target.
    struct Ratio {
        /// The JSON key, e.g. `ahc.sequential.cpu`.
        var key: String
        /// The pair's key, e.g. `ahc`.
        var pairKey: String
        /// Median, min and max over rounds.
        var summary: Summary
        /// The target (`nil`: none).
        var target: Double?
        /// Whether the target is an upper bound (`cpu`) or a lower one (`rps`).
        var isUpperBound: Bool
        /// Whether the median meets the target (`nil` when there is none).
        var met: Bool? {
            guard let target else { return nil }
            return isUpperBound ? summary.median <= target : summary.median >= target
        }
    }

    /// The figures of one scenario in one mode.
    func summary(_ key: String, _ mode: RunMode, _ figure: (Measurement) -> Double) -> Summary {
        Summary((results[key]?[mode] ?? []).map(figure))
    }

    /// Every ratio the pairs define, for both modes, CPU and requests/s.
    func ratios() -> [Ratio] {
        var ratios: [Ratio] = []
        for pair in pairs {
            guard let subject = results[pair.subject], let baseline = results[pair.baseline] else { continue }
            for mode in RunMode.allCases {
                let s = subject[mode] ?? [], b = baseline[mode] ?? []
                let count = min(s.count, b.count)
                let cpu = (0..<count).map { s[$0].cpuMicros / b[$0].cpuMicros }
                let rps = (0..<count).map { s[$0].requestsPerSecond / b[$0].requestsPerSecond }
                ratios.append(Ratio(key: "\(pair.key).\(mode.rawValue).cpu", pairKey: pair.key, summary: Summary(cpu), target: pair.cpuTarget, isUpperBound: true))
                ratios.append(Ratio(key: "\(pair.key).\(mode.rawValue).rps", pairKey: pair.key, summary: Summary(rps), target: pair.rpsTarget, isUpperBound: false))
            }
            if pair.key == "middleware", let sequential = ratios.first(where: { $0.key == "middleware.sequential.cpu" }) {
                var alias = sequential
                alias.key = "middleware.cpu"
                ratios.append(alias)
            }
        }
        return ratios
    }

    /// A pair's peak resident memory at 64 in flight, subject minus baseline, each measured in
    /// its own process (the `flat` probe).
    struct PeakDelta {
        /// The pair's key.
        var pair: String
        /// The subject's scenario key.
        var subject: String
        /// The baseline's scenario key.
        var baseline: String
        /// Subject's peak − baseline's peak, in bytes (negative: Courier used less).
        var bytes: Int
    }

    /// The peak differences of every pair whose two sides were probed.
    func peakDeltas() -> [PeakDelta] {
        let peaks = Dictionary(memory.filter { $0.workload == "flat" }.map { ($0.client, $0.peakRSS) }, uniquingKeysWith: max)
        return pairs.compactMap { pair in
            guard let subject = peaks[pair.subject], let baseline = peaks[pair.baseline] else { return nil }
            return PeakDelta(pair: pair.key, subject: pair.subject, baseline: pair.baseline, bytes: subject - baseline)
        }
    }
}
