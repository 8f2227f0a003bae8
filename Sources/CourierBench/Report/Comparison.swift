import Foundation

/// `courier-bench --compare before.json after.json`: the ratio changes between two runs, one
/// line per pair, so a change to the request path shows its cost at a glance.
///
/// Each file is the output of `courier-bench --json` (the whole output or only its last line:
/// the last line that parses as a JSON object with `ratios` is used).
///
/// ```
/// ahc.default   seq cpu 1.162 → 1.081 (-7.0%)   64 cpu 1.181 → 1.102 (-6.7%)   seq rps 0.913 → 0.962 (+5.4%)   64 rps …
/// ```
enum Comparison {
    /// The figures of one run read back from its JSON.
    struct Run {
        /// Ratio medians by key (`ahc.sequential.cpu`…).
        var ratios: [String: Double]
        /// Peak RSS differences at 64 in flight by pair key, in bytes.
        var peakDeltas: [String: Int]
    }

    /// Reads both files and prints the comparison.
    static func run(before: String, after: String) throws {
        print(try lines(before: load(before), after: load(after)).joined(separator: "\n"))
    }

    /// The comparison's lines: one per pair found in either run, in a stable order.
    static func lines(before: Run, after: Run) -> [String] {
        let keys = Set(before.ratios.keys).union(after.ratios.keys)
        let pairs = Set(keys.compactMap(pairKey(of:)))
        let known = BenchmarkRun.pairs.map(\.key)
        let ordered = known.filter(pairs.contains) + pairs.subtracting(known).sorted()
        let width = ordered.map(\.count).max() ?? 0
        var lines: [String] = []
        for pair in ordered {
            var cells: [String] = []
            for (mode, label) in [("sequential", "seq"), ("concurrent", "64")] {
                for figure in ["cpu", "rps"] {
                    let key = "\(pair).\(mode).\(figure)"
                    guard before.ratios[key] != nil || after.ratios[key] != nil else { continue }
                    cells.append("\(label) \(figure) \(change(before.ratios[key], after.ratios[key]))")
                }
            }
            if before.peakDeltas[pair] != nil || after.peakDeltas[pair] != nil {
                let text = { (bytes: Int?) in bytes.map { String(format: "%+.1f MiB", Double($0) / 1_048_576) } ?? "—" }
                cells.append("peak RSS Courier−raw \(text(before.peakDeltas[pair])) → \(text(after.peakDeltas[pair]))")
            }
            lines.append(pair.padding(toLength: width, withPad: " ", startingAt: 0) + "   " + cells.joined(separator: "   "))
        }
        if lines.isEmpty { lines.append("no ratios in either file") }
        return lines
    }

    /// `1.162 → 1.081 (-7.0%)`, with `—` for a side that has no figure.
    static func change(_ before: Double?, _ after: Double?) -> String {
        let text = { (value: Double?) in value.map { String(format: "%.3f", $0) } ?? "—" }
        guard let before, let after, before > 0 else { return "\(text(before)) → \(text(after))" }
        return "\(text(before)) → \(text(after)) (\(String(format: "%+.1f", (after / before - 1) * 100))%)"
    }

    /// `ahc.default` for `ahc.default.sequential.cpu`; `nil` for keys of another shape
    /// (`middleware.cpu`, an alias).
    static func pairKey(of ratioKey: String) -> String? {
        let parts = ratioKey.split(separator: ".")
        guard parts.count >= 3, ["sequential", "concurrent"].contains(parts[parts.count - 2]) else { return nil }
        return parts.dropLast(2).joined(separator: ".")
    }

    /// The run in the file at `path`.
    static func load(_ path: String) throws -> Run {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw OptionsError("cannot read \(path)")
        }
        for line in text.split(separator: "\n").reversed() where line.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let values = object["ratios"] as? [String: Any] else { continue }
            let ratios = values.compactMapValues { ($0 as? NSNumber)?.doubleValue }
            let deltas = (object["peakDeltas"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
            return Run(ratios: ratios, peakDeltas: deltas)
        }
        throw OptionsError("\(path) holds no courier-bench --json line (a JSON object with \"ratios\")")
    }
}
