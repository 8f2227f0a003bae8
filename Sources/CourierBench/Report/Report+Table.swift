import Foundation

extension Report {
    /// The figures as Markdown tables: ratios first (the numbers that matter), same-configuration
    /// pairs then default-against-default pairs; then the absolute figures of the same run with
    /// the connections each scenario opened; then memory.
    func table() -> String {
        var lines: [String] = []
        let rounds = options.processes.map { "\($0) rounds, each in its own process" } ?? "\(options.rounds) interleaved rounds"
        lines.append("Courier / raw ratios (median of \(rounds), min–max); CPU: lower is better, req/s: higher is better")
        for (title, isDefault) in [("Same configuration (the raw client is given Courier's configuration)", false),
                                   ("Default against default (each side as it comes)", true)] {
            let keys = Set(pairs.filter { $0.isDefaultVersusDefault == isDefault && !$0.isCache }.map(\.key))
            let rows = ratios().filter { $0.key != "middleware.cpu" && keys.contains($0.pairKey) }
            guard !rows.isEmpty else { continue }
            lines.append("")
            lines.append("\(title):")
            lines.append("")
            lines.append("| Ratio | Median | Min–max | Target | Met |")
            lines.append("| --- | ---: | ---: | ---: | :---: |")
            for ratio in rows {
                let target = ratio.target.map { (ratio.isUpperBound ? "≤ " : "≥ ") + Self.format($0, 2) } ?? "—"
                let met = ratio.met.map { $0 ? "yes" : "**no**" } ?? ""
                lines.append("| `\(ratio.key)` | \(Self.format(ratio.summary.median, 3)) | \(Self.format(ratio.summary.min, 3))–\(Self.format(ratio.summary.max, 3)) | \(target) | \(met) |")
            }
        }
        lines += cacheRatioTable()
        lines.append("")
        lines.append("| Scenario | Mode | CPU µs/request | Requests/s | Connections opened per run |")
        lines.append("| --- | --- | ---: | ---: | ---: |")
        for scenario in scenarios {
            for mode in RunMode.allCases {
                let cpu = summary(scenario.key, mode) { $0.cpuMicros }
                let rps = summary(scenario.key, mode) { $0.requestsPerSecond }
                let opened = (results[scenario.key]?[mode] ?? []).compactMap(\.connectionsOpened)
                let connections = opened.isEmpty ? "—" : opened.map(String.init).joined(separator: ", ")
                lines.append("| \(scenario.label) | \(mode == .sequential ? "sequential" : "\(options.inFlight) in flight") | \(Self.range(cpu, 1)) | \(Self.range(rps, 0)) | \(connections) |")
            }
        }
        if !memory.isEmpty {
            lines.append("")
            lines.append("| Memory probe (own process) | Peak above baseline | Peak RSS | RSS after each round | Open fds after each round |")
            lines.append("| --- | ---: | ---: | --- | --- |")
            for probe in memory {
                let rounds = probe.roundRSS.map { Self.format(Double($0) / 1_048_576, 1) }.joined(separator: ", ")
                let label = probe.workload == "large" ? "\(probe.client): 20 × 1 MiB body" : "\(probe.client): \(MemoryProbe.flatRounds) × 10,000 at 64 in flight"
                lines.append("| \(label) | \(Self.mebibytes(probe.peakAboveBaseline)) | \(Self.mebibytes(probe.peakRSS)) | \(rounds.isEmpty ? "—" : rounds + " MiB") | \(probe.roundOpenFiles.isEmpty ? "—" : probe.roundOpenFiles.map(String.init).joined(separator: ", ")) |")
            }
            let deltas = peakDeltas()
            if !deltas.isEmpty {
                lines.append("")
                lines.append("| Peak RSS at 64 in flight, Courier − raw (own processes) | Difference |")
                lines.append("| --- | ---: |")
                for delta in deltas {
                    lines.append("| `\(delta.pair)` (\(delta.subject) − \(delta.baseline)) | \(Self.format(Double(delta.bytes) / 1_048_576, 2)) MiB |")
                }
            }
        }
        lines += cacheMemoryTable()
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

    /// Bytes as MiB with two decimals.
    static func mebibytes(_ bytes: Int) -> String {
        format(Double(bytes) / 1_048_576, 2) + " MiB"
    }
}
