import Foundation

extension Report {
    /// The figures as Markdown tables: ratios first (the numbers that matter), then the
    /// absolute figures of the same run, then memory.
    func table() -> String {
        var lines: [String] = []
        lines.append("Courier / raw ratios (median of \(options.rounds) interleaved rounds, min–max); CPU: lower is better, req/s: higher is better")
        lines.append("")
        lines.append("| Ratio | Median | Min–max | Target | Met |")
        lines.append("| --- | ---: | ---: | ---: | :---: |")
        for ratio in ratios() where ratio.key != "middleware.cpu" {
            let target = ratio.target.map { (ratio.isUpperBound ? "≤ " : "≥ ") + Self.format($0, 2) } ?? "—"
            let met = ratio.met.map { $0 ? "yes" : "**no**" } ?? ""
            lines.append("| `\(ratio.key)` | \(Self.format(ratio.summary.median, 3)) | \(Self.format(ratio.summary.min, 3))–\(Self.format(ratio.summary.max, 3)) | \(target) | \(met) |")
        }
        lines.append("")
        lines.append("| Scenario | Mode | CPU µs/request | Requests/s | Peak RSS (process) |")
        lines.append("| --- | --- | ---: | ---: | ---: |")
        for scenario in scenarios {
            for mode in RunMode.allCases {
                let cpu = summary(scenario.key, mode) { $0.cpuMicros }
                let rps = summary(scenario.key, mode) { $0.requestsPerSecond }
                let peak = summary(scenario.key, mode) { Double($0.peakRSS) }
                lines.append("| \(scenario.label) | \(mode.rawValue) | \(Self.range(cpu, 1)) | \(Self.range(rps, 0)) | \(Self.format(peak.max / 1_048_576, 1)) MiB |")
            }
        }
        if !memory.isEmpty {
            lines.append("")
            lines.append("| Memory probe (own process) | Peak above baseline | RSS after each round | Open fds after each round |")
            lines.append("| --- | ---: | --- | --- |")
            for probe in memory {
                let rounds = probe.roundRSS.map { Self.format(Double($0) / 1_048_576, 1) }.joined(separator: ", ")
                let label = probe.workload == "large" ? "\(probe.client): 20 × 1 MiB body" : "\(probe.client): \(MemoryProbe.flatRounds) × 10,000 at 64 in flight"
                lines.append("| \(label) | \(Self.format(Double(probe.peakAboveBaseline) / 1_048_576, 2)) MiB | \(rounds.isEmpty ? "—" : rounds + " MiB") | \(probe.roundOpenFiles.isEmpty ? "—" : probe.roundOpenFiles.map(String.init).joined(separator: ", ")) |")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `median (min–max)`.
    static func range(_ summary: Summary, _ digits: Int) -> String {
        "\(format(summary.median, digits)) (\(format(summary.min, digits))–\(format(summary.max, digits)))"
    }

    /// A number with `digits` decimals.
    static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
