import Foundation

extension Report {
    /// The HTTP cache's ratios (Courier with a ``CachingMiddleware`` ÷ Courier without, same
    /// round), as a Markdown table; empty when no cache pair ran.
    func cacheRatioTable() -> [String] {
        let keys = Set(pairs.filter(\.isCache).map(\.key))
        let rows = ratios().filter { keys.contains($0.pairKey) }
        guard !rows.isEmpty else { return [] }
        var lines = ["", "HTTP cache (Courier + CachingMiddleware ÷ Courier without a cache, AsyncHTTPClient, same round; CPU per request):", ""]
        lines.append("| Ratio | Median | Min–max | Target | Met |")
        lines.append("| --- | ---: | ---: | ---: | :---: |")
        for ratio in rows {
            let target = ratio.target.map { "≤ " + Self.format($0, 2) } ?? "—"
            let met = ratio.met.map { $0 ? "yes" : "**no**" } ?? ""
            lines.append("| `\(ratio.key)` | \(Self.format(ratio.summary.median, 3)) | \(Self.format(ratio.summary.min, 3))–\(Self.format(ratio.summary.max, 3)) | \(target) | \(met) |")
        }
        return lines
    }

    /// The memory store's probes as a Markdown table; empty when none ran.
    func cacheMemoryTable() -> [String] {
        guard !cacheMemory.isEmpty else { return [] }
        var lines = ["", "| \(CacheMemoryProbe.requests) distinct URLs at 64 in flight (own process) | Peak above baseline | Peak RSS | RSS at the end | Store entries | Store bytes | Store limits |",
                     "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
        for probe in cacheMemory {
            let label = probe.cached ? "Courier + CachingMiddleware(MemoryCacheStore())" : "Courier, no cache"
            let store = probe.cached ? ["\(probe.storeCount)", Self.mebibytes(probe.storeBytes),
                                        "\(probe.maxEntries) entries, \(Self.mebibytes(probe.maxBytes))\(probe.storeWithinLimits ? "" : " **exceeded**")"]
                                     : ["—", "—", "—"]
            lines.append("| \(label) | \(Self.mebibytes(probe.peakAboveBaseline)) | \(Self.mebibytes(probe.peakRSS)) | \(Self.mebibytes(probe.finalRSS)) | " + store.joined(separator: " | ") + " |")
        }
        if let with = cacheMemory.first(where: \.cached), let without = cacheMemory.first(where: { !$0.cached }) {
            lines.append("")
            lines.append("Peak RSS with the cache − without: \(Self.format(Double(with.peakRSS - without.peakRSS) / 1_048_576, 2)) MiB")
        }
        return lines
    }

    /// The memory store's probes for the JSON line.
    func cacheMemoryJSON() -> [[String: Any]] {
        cacheMemory.map { probe in
            ["cached": probe.cached, "requests": probe.requests, "baselineRSSBytes": probe.baselineRSS,
             "peakRSSBytes": probe.peakRSS, "peakAboveBaselineBytes": probe.peakAboveBaseline, "finalRSSBytes": probe.finalRSS,
             "storeCount": probe.storeCount, "storeBytes": probe.storeBytes, "maxEntries": probe.maxEntries, "maxBytes": probe.maxBytes]
        }
    }
}
