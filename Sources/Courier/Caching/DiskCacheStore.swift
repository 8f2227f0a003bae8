import Foundation

/// An ``HTTPCacheStore`` in a directory, one file per response, bounded in size; the least
/// recently used entries go first.
///
/// ```swift
/// let directory = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
///     .appendingPathComponent("api-cache")
/// let store = DiskCacheStore(directory: directory, maxBytes: 100 << 20)
/// let client = APIClient(configuration: configuration, transport: transport,
///                        middleware: [CachingMiddleware(store: store)])
/// // At logout:
/// await store.removeAll()
/// ```
///
/// What it guarantees:
/// - **A crash never leaves half an entry.** Each entry is written to a temporary file in the
///   directory, flushed, and renamed over the old one; readers see the old entry or the new one.
///   Temporary files left by a crash are removed when the store next evicts.
/// - **A damaged entry is a miss, never an error.** A file that is truncated, padded, not in
///   this format, or filed under another key's name reads as `nil` and is removed.
/// - **Sharing is safe.** Several stores, in one process or many, may use one directory: every
///   change is a rename or an unlink, and each store tolerates files vanishing under it.
/// - **Purges reach every store on the directory.** A purge (``removeAll()``,
///   ``removeEntries(where:)``) replaces the directory's purge generation, and ``purgeCount``
///   is made from it: a response under way through any store on the directory — in this
///   process or another (an app and its extension) — is not stored by ``CachingMiddleware``
///   after a purge through any of them (see ``purgeCount`` for the limits).
/// - **Owner-only.** The directory is created with mode `0700` and files with `0600`. An
///   existing directory of this user's that is open to others is tightened to `0700` and
///   purged (its entries and key file removed; a new key): what another user planted there is
///   never served. A file that is not this user's, or that others may write, is removed when
///   met, never read. File
///   names are the first 128 bits of the SHA-256 digests of the URL and of the whole key (so a
///   URL's entries are found without opening the others), and keys
///   hold credentials only as HMAC-SHA-256 digests under a random key kept in the directory
///   (``digestKey``): an entry file on its own (a key in a log, a file copied out) gives no
///   way to test guesses of a weak password. Whoever can read the whole directory has the key
///   too — the directory's owner-only mode is what protects it.
/// - **Bounded.** An entry whose file would exceed `maxBytes` is not stored (and the entry it
///   would have replaced is removed). When the store's running count of the bytes in the
///   directory passes `maxBytes`, it lists the directory and removes the least recently used
///   entries (oldest modification time; a hit updates it) until the total is at most 90 % of
///   `maxBytes`. The count includes what other stores had written at the last listing, plus
///   this store's own writes since, so with several writers the directory can briefly exceed
///   `maxBytes` until one of them lists it. Give stores sharing a directory the same limit:
///   a store removes files larger than its own `maxBytes` when it meets them.
///
/// File I/O runs on a dispatch queue, not on Swift concurrency's cooperative threads — except
/// the one read of the digest key (see ``digestKey``).
public final class DiskCacheStore: HTTPCacheStore {
    /// The directory the entries are in.
    public let directory: URL
    /// The most bytes the entry files may take together.
    public let maxBytes: Int

    private let files: DiskCacheDirectory
    /// This store's estimate of the bytes in the directory: `nil` until the first write lists
    /// it, then the last listing's total plus what this store has written and removed since.
    private let estimatedBytes = Locked<Int?>(nil)
    /// Whether an eviction pass is running, so that concurrent writes do not list the
    /// directory several times over.
    private let evicting = Locked(false)
    /// How many purges this store has had (counted when one starts); part of ``purgeCount``,
    /// so that a purge is seen in this process even when the directory's generation cannot be
    /// replaced.
    private let purges = Locked(0)
    /// The key of the digests of secrets, once read from (or written to) the directory.
    private let loadedDigestKey = Locked<[UInt8]?>(nil)

    /// Temporary files older than this are leftovers of a crashed writer.
    private static let temporaryFileLifetime: TimeInterval = 60
    private static let queue = DispatchQueue(label: "Courier.DiskCacheStore", qos: .utility, attributes: .concurrent)
    /// Where the time comes from.
    private let clock: any TimeSource

    /// Creates a store in `directory`, which is created (mode `0700`) at the first write, or
    /// the first read of ``purgeCount``, if it does not exist. Entries already in it are used —
    /// if the directory is this user's: one that is a symbolic link, or belongs to another
    /// user, is never read, written or emptied (the store then keeps nothing), and one of this
    /// user's open to others is tightened to `0700` and purged first (entries, key file). Put it
    /// in a place only you can write to (the caches folder): in a shared one such as `/tmp` the
    /// checks run before each use and removals never follow a link in place of the directory,
    /// but another user could still swap the path between a check and the read or write that
    /// follows it.
    ///
    /// - Parameters:
    ///   - directory: a file URL of a directory for this cache alone (other files in it are
    ///     left alone but not counted).
    ///   - maxBytes: the most bytes the entry files may take together (default 50 MiB).
    ///   - clock: where the time comes from, for the age of abandoned temporary files (tests
    ///     inject a `ManualClock`).
    public init(directory: URL, maxBytes: Int = 50 << 20, clock: any TimeSource = .system) {
        self.directory = directory
        self.clock = clock
        self.maxBytes = max(0, maxBytes)
        var path = directory.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.files = DiskCacheDirectory(path: path)
    }

    /// The stored response for `key`, or `nil` when there is none or its file is damaged (the
    /// file is then removed). A hit marks the entry as recently used.
    public func entry(for key: HTTPCacheKey) async -> CachedHTTPResponse? {
        await perform { [files, maxBytes] in
            guard files.isTrusted() else { return nil }
            let name = DiskCacheDirectory.fileName(for: key)
            switch files.readEntry(name, body: true, maxFileSize: maxBytes, touch: true) {
            case .missing:
                return nil
            case .unusable:
                self.remove(name)
                return nil
            case let .found(metadata, body):
                guard metadata.key == key, let body, let entry = DiskCacheEntryFile.response(from: metadata, body: body) else {
                    self.remove(name)
                    return nil
                }
                return entry
            }
        }
    }

    /// Stores `entry`, replacing the entry stored under its key. An entry whose file would be
    /// larger than ``maxBytes``, or that cannot be written (disk full, no permission), is not
    /// stored, and the old entry is removed.
    public func store(_ entry: CachedHTTPResponse) async {
        await perform { [files, maxBytes] in
            guard files.isTrusted() else { return }
            let name = DiskCacheDirectory.fileName(for: entry.key)
            guard let head = DiskCacheEntryFile.prefixAndMetadata(for: entry), head.count + entry.bytes.count <= maxBytes,
                  let replaced = files.writeEntry(name, head: head, body: entry.bytes) else {
                self.remove(name)
                return
            }
            // A directory emptied under the store (a purge of the caches folder) gets the key
            // back, so what is written now is found after a relaunch. When the directory holds
            // another key (a tightened directory got a new one), the store takes that one.
            if let key = self.loadedDigestKey.withLock({ $0 }), let held = files.restoreDigestKey(key), held != key {
                self.loadedDigestKey.withLock { $0 = held }
            }
            let added = head.count + entry.bytes.count - replaced
            let overLimit = self.estimatedBytes.withLock { estimate -> Bool in
                guard let bytes = estimate else { return true }
                estimate = bytes + added
                return bytes + added > maxBytes
            }
            if overLimit { self.evict(keeping: name) }
        }
    }

    /// Removes the entry stored under `key`, if any. Nothing is removed from a directory the
    /// store may not use (a symbolic link, another user's), as nothing is read from it.
    public func removeEntry(for key: HTTPCacheKey) async {
        await perform { [files] in
            guard files.isTrusted() else { return }
            self.remove(DiskCacheDirectory.fileName(for: key))
        }
    }

    /// Removes every entry whose key matches `predicate`, reading only each file's metadata,
    /// and counts a purge: the directory gets a new purge generation first (see
    /// ``purgeCount``). Damaged files, and files that are not this user's alone, are removed too.
    public func removeEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async {
        purges.withLock { $0 += 1 }
        await perform { [files] in
            guard files.isTrusted() else { return }
            // Before the entries go: a store that writes after this reads the new generation
            // and removes what it wrote; one that wrote before has its entry removed below.
            files.replacePurgeGeneration()
            self.removeMatching(predicate)
        }
    }

    /// Removes the entries of `urls` whose key matches `predicate`, without counting a purge
    /// (see ``HTTPCacheStore/invalidateEntries(forURLs:where:)``). Only the files named for
    /// those URLs are opened (their metadata read): file names begin with a digest of the URL,
    /// so a cache of thousands of entries is listed, not read, at each successful `POST`.
    /// A damaged file among them is removed too.
    public func invalidateEntries(forURLs urls: Set<String>, where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async {
        let prefixes = Set(urls.map(DiskCacheDirectory.namePrefix(forURL:)))
        await perform { [files] in
            guard files.isTrusted() else { return }
            for name in files.entryNames(withPrefixes: prefixes) {
                switch files.readEntry(name, body: false, maxFileSize: .max, touch: false) {
                case .missing:
                    continue
                case .unusable:
                    self.remove(name)
                case let .found(metadata, _):
                    if urls.contains(metadata.key.url), predicate(metadata.key) { self.remove(name) }
                }
            }
        }
    }

    /// Removes every entry whose key matches `predicate`, reading each file's metadata,
    /// without counting a purge (see ``HTTPCacheStore/invalidateEntries(where:)``).
    public func invalidateEntries(where predicate: @escaping @Sendable (HTTPCacheKey) -> Bool) async {
        await perform { [files] in
            guard files.isTrusted() else { return }
            self.removeMatching(predicate)
        }
    }

    /// Removes every entry, and the temporary files of writes in progress (those writes are
    /// then dropped), leaving the directory empty of cache files but for the digest key and the
    /// new purge generation (see ``purgeCount``). A directory the store may not use (a symbolic
    /// link, another user's) is left as it is: nothing is removed through a link.
    public func removeAll() async {
        purges.withLock { $0 += 1 }
        await perform { [files] in
            guard files.isTrusted() else { return }
            // Before the entries go, as in `removeEntries(where:)`.
            files.replacePurgeGeneration()
            for file in files.scan() { files.removeFile(file.name) }
            self.estimatedBytes.withLock { $0 = 0 }
        }
    }

    /// A number that changes at every purge (``removeAll()``, ``removeEntries(where:)``)
    /// through any store on this directory, in this process or another: the directory's purge
    /// generation (a random 64-bit value in `.purge-generation`, mode `0600`, replaced by each
    /// purge) plus this store's own count of purges. Compare it only for equality:
    /// ``CachingMiddleware`` reads it before a request goes out and stores nothing from that
    /// request if it changed meanwhile.
    ///
    /// What holds across stores and processes: a purge replaces the generation before it
    /// removes the entries, and the middleware reads the generation again after each write, so
    /// a response under way through another store is either not written or removed again. Not
    /// covered: a store of another directory, a directory the purging store may not use, and —
    /// when the disk cannot take the new generation and the old file cannot be removed either —
    /// other stores (this store still sees its own purge). A missing directory or generation
    /// file (the system purged the caches folder) reads as a new random generation, so a
    /// request under way then is not stored either.
    ///
    /// Reading it reads the generation file, on the store's queue (and creates the directory
    /// and the file when they are missing).
    public var purgeCount: Int {
        get async {
            let own = purges.withLock { $0 }
            let shared = await perform { [files] in files.purgeGeneration() ?? 0 }
            return Int(truncatingIfNeeded: shared) &+ own
        }
    }

    // MARK: Internals

    /// Removes the entries whose key matches `predicate` (reading each file's metadata), and
    /// files that are damaged or not the store's own. Runs on the store's queue.
    private func removeMatching(_ predicate: (HTTPCacheKey) -> Bool) {
        for file in files.scan() where !file.isTemporary {
            switch files.readEntry(file.name, body: false, maxFileSize: .max, touch: false) {
            case .missing:
                continue
            case .unusable:
                remove(file.name)
            case let .found(metadata, _):
                if predicate(metadata.key) { remove(file.name) }
            }
        }
    }

    private func remove(_ name: String) {
        guard let size = files.removeFile(name) else { return }
        estimatedBytes.withLock { estimate in
            if let bytes = estimate { estimate = max(0, bytes - size) }
        }
    }

    /// Lists the directory, removes temporary files older than a minute, and, when the entries
    /// take more than ``maxBytes``, removes the least recently used ones (never `kept`, the
    /// entry just written) until they take at most 90 % of it.
    private func evict(keeping kept: String) {
        guard evicting.withLock({ running in
            defer { running = true }
            return !running
        }) else { return }
        defer { evicting.withLock { $0 = false } }

        let now = clock.now()
        var entries: [DiskCacheDirectory.File] = []
        var total = 0
        for file in files.scan() {
            if file.isTemporary {
                if now.timeIntervalSince(file.modified) > Self.temporaryFileLifetime { files.removeFile(file.name) }
            } else {
                entries.append(file)
                total += file.size
            }
        }
        if total > maxBytes {
            let target = maxBytes / 10 * 9
            entries.sort { ($0.modified, $0.name) < ($1.modified, $1.name) }
            for file in entries where total > target && file.name != kept {
                // A file another store removed first no longer counts either way.
                files.removeFile(file.name)
                total -= file.size
            }
        }
        estimatedBytes.withLock { $0 = total }
    }

    /// The key of the digests of secrets in keys (``HTTPCacheStore/digestKey``): 32 random bytes
    /// kept in the directory as `.digest-key` (mode `0600`), read — or, when missing, damaged,
    /// not this user's or open to others, written — the first time a secret is digested, then
    /// kept in memory. Stores sharing the directory, in this process or others, agree on it.
    /// When the directory can keep none (not this user's, read-only, a failing disk), each call
    /// gives a new random key: entries are then misses, never keyed by a plain digest. The key
    /// survives ``removeAll()`` (other stores sharing the directory go on using it) and is
    /// written again if the directory is emptied under the store. A directory that had to be
    /// tightened gets a new key; a store that had read the old one takes the new one at its next
    /// write.
    ///
    /// The one read (or write) of the key file happens on the calling thread, under a lock —
    /// with the tightening and purge of a directory open to others, when this read is the
    /// first to find it so.
    public var digestKey: [UInt8]? {
        loadedDigestKey.withLock { loaded in
            if let loaded { return loaded }
            guard let key = files.digestKey() else { return CacheDigest.randomKey() }
            loaded = key
            return key
        }
    }

    /// Runs blocking file work off the cooperative thread pool.
    private func perform<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Self.queue.async { continuation.resume(returning: work()) }
        }
    }
}
