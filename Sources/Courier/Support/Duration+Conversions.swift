/// Conversions of `Duration` that never trap: a timeout of `.seconds(Int64.max)` ("no timeout")
/// must not overflow the arithmetic of a transport, a timer or a sleep.
extension Duration {
    /// The longest duration Courier waits for anything (ten years). A longer timeout, including
    /// `.seconds(Int64.max)`, means the same; it keeps every deadline computation in range.
    package static let longestWait: Duration = .seconds(10 * 365 * 24 * 3600)

    /// This duration clamped to `0...longestWait`: negative durations are zero.
    package var clampedToLongestWait: Duration {
        if self < .zero { return .zero }
        return self > Self.longestWait ? Self.longestWait : self
    }

    /// Whole nanoseconds, saturating at `Int64.min` / `Int64.max` instead of overflowing.
    package var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflowSum) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflowSum { return seconds < 0 ? .min : .max }
        return sum
    }

    /// Seconds as a `Double` (for `TimeInterval` APIs and reports).
    package var secondsValue: Double {
        // `components` divides a 128-bit count of attoseconds: once.
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
