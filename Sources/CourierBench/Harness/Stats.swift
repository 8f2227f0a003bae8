/// A median with the spread it came from.
struct Summary: Sendable, Codable {
    /// The median of the samples.
    var median: Double
    /// The smallest sample.
    var min: Double
    /// The largest sample.
    var max: Double

    /// The summary of `samples` (all zero when there are none).
    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else {
            (median, min, max) = (0, 0, 0)
            return
        }
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }
}
