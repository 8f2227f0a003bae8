import Foundation

/// An ``HTTPCacheStore`` in memory, bounded by bytes and by entry count; the least recently
/// used entries go first.
///
/// ```swift
/// let store = MemoryCacheStore(maxBytes: 10 << 20, maxEntries: 1_000)
/// let client = APIClient(configuration: configuration, transport: transport,
///                        middleware: [CachingMiddleware(store: store)])
/// ```
///
/// An entry larger than `maxBytes` is not stored, and the entry stored under its key before is
/// removed (it is no longer the newest answer). The size of an entry is
/// its ``CachedHTTPResponse/cost``: body, header fields and key.
public final class MemoryCacheStore: HTTPCacheStore {
    /// The most bytes the entries may take together.
    public let maxBytes: Int
    /// The most entries kept.
    public let maxEntries: Int

    /// An entry with its cost and the tick of its last use. (A struct, not a tuple: the
    /// runtime copies tuples held in a dictionary through generic value witnesses.)
    private struct Slot {
        var entry: CachedHTTPResponse
        var cost: Int
        var tick: UInt64
    }

    private struct State {
        var entries: [HTTPCacheKey: Slot] = [:]
        /// Keys in the order they were last used, oldest first, with the tick of that use. A key
        /// used again appears again; the older appearances are skipped when evicting (their
        /// tick no longer matches), and the queue is compacted when it grows past twice the
        /// entry count — O(1) amortized per operation.
        var recency: [(key: HTTPCacheKey, tick: UInt64)] = []
        var recencyStart = 0
        var tick: UInt64 = 0
        var totalCost = 0
        var purges = 0
    }

    private let state = Locked(State())
    /// The key of this store's digests of secrets in keys (``HTTPCacheStore/digestKey``), drawn
    /// at random when the store is made.
    public let digestKey: [UInt8]? = CacheDigest.randomKey()

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - maxBytes: the most bytes the entries may take together (default 10 MiB).
    ///   - maxEntries: the most entries kept (default 1,000).
    public init(maxBytes: Int = 10 << 20, maxEntries: Int = 1_000) {
        self.maxBytes = max(0, maxBytes)
        self.maxEntries = max(0, maxEntries)
    }

    /// How many entries the store holds.
    public var count: Int { state.withLock { $0.entries.count } }
    /// How many bytes the entries take, by ``CachedHTTPResponse/cost``.
    public var totalBytes: Int { state.withLock { $0.totalCost } }

    public func entry(for key: HTTPCacheKey) async -> CachedHTTPResponse? {
        state.withLock { state in
            // One hash of the key: the entry is found and touched through its index.
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.tick += 1
            state.entries.values[index].tick = state.tick
            state.recency.append((key, state.tick))
            Self.compact(&state)
            return state.entries.values[index].entry
        }
    }

    public func store(_ entry: CachedHTTPResponse) async {
        let cost = entry.cost
        state.withLock { state in
            guard cost <= maxBytes, maxEntries > 0 else {
                if let old = state.entries.removeValue(forKey: entry.key) { state.totalCost -= old.cost }
                return
            }
            state.tick += 1
            // One hash of the key: the old entry, if any, is replaced in place.
            if let old = state.entries.updateValue(Slot(entry: entry, cost: cost, tick: state.tick), forKey: entry.key) {
                state.totalCost -= old.cost
            }
            state.totalCost += cost
            state.recency.append((entry.key, state.tick))
            while state.totalCost > maxBytes || state.entries.count > maxEntries {
                Self.evictOldest(&state)
            }
            Self.compact(&state)
        }
    }

    public func removeEntry(for key: HTTPCacheKey) async {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.totalCost -= old.cost }
        }
    }

    public func removeEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async {
        remove(where: predicate, countingAPurge: true)
    }

    /// Removes every entry whose key matches `predicate`, without counting a purge (see
    /// ``HTTPCacheStore/invalidateEntries(where:)``).
    public func invalidateEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async {
        remove(where: predicate, countingAPurge: false)
    }

    private func remove(where predicate: (HTTPCacheKey) -> Bool, countingAPurge: Bool) {
        state.withLock { state in
            if countingAPurge { state.purges += 1 }
            for key in state.entries.keys where predicate(key) {
                if let old = state.entries.removeValue(forKey: key) { state.totalCost -= old.cost }
            }
        }
    }

    public func removeAll() async {
        state.withLock { state in
            let purges = state.purges
            state = State()
            state.purges = purges + 1
        }
    }

    /// How many purges (``removeAll()``, ``removeEntries(where:)``) this store has had.
    public var purgeCount: Int { state.withLock { $0.purges } }

    private static func evictOldest(_ state: inout State) {
        while state.recencyStart < state.recency.count {
            let (key, tick) = state.recency[state.recencyStart]
            state.recencyStart += 1
            if let index = state.entries.index(forKey: key), state.entries.values[index].tick == tick {
                state.totalCost -= state.entries.remove(at: index).value.cost
                return
            }
        }
    }

    private static func compact(_ state: inout State) {
        let live = state.recency.count - state.recencyStart
        guard state.recency.count > 64,
              live > 2 * state.entries.count || state.recencyStart > state.recency.count / 2 else { return }
        // Rebuilt from the entries, ordered by their last use: no key is hashed (filtering the
        // queue looked every key up again, on every store operation).
        var recency: [(key: HTTPCacheKey, tick: UInt64)] = []
        recency.reserveCapacity(state.entries.count)
        for (key, slot) in state.entries { recency.append((key, slot.tick)) }
        recency.sort { $0.tick < $1.tick }
        state.recency = recency
        state.recencyStart = 0
    }
}
