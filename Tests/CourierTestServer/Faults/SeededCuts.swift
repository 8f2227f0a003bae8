import CourierTesting

/// How a cut ends a connection: a close (FIN: what was sent arrives, then the end), a reset
/// (RST: what was in flight is lost), or either, drawn from the cut seed.
public enum ConnectionCutStyle: Sendable { case mixed, close, reset }

/// Where a server cuts its transfers: `count` distinct offsets in `1..<size`, ascending, each
/// with whether it is a reset — drawn from `seed`, so every run (and every process) cuts at the
/// same bytes. The range and upload servers share it.
enum SeededCuts {
    static func draw(count: Int, within size: Int, seed: UInt64, style: ConnectionCutStyle) -> [(offset: Int, reset: Bool)] {
        var generator = SplitMix64(seed: seed)
        var offsets = Set<Int>()
        while offsets.count < min(count, max(0, size - 1)) {
            offsets.insert(Int(generator.next() % UInt64(size - 1)) + 1)
        }
        return offsets.sorted().map { offset in
            let drawn = generator.next() % 2 == 0
            switch style {
            case .mixed: return (offset, drawn)
            case .close: return (offset, false)
            case .reset: return (offset, true)
            }
        }
    }
}
