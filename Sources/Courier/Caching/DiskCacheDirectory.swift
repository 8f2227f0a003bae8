import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file system side of ``DiskCacheStore``: POSIX calls on one directory, each of which
/// tolerates another store or process changing the directory at the same time (a file that
/// vanishes between listing and opening is simply not there).
///
/// Entries are `<64 hex digits>.cache` files (see ``DiskCacheEntryFile`` and
/// ``fileName(for:)``); writes go to
/// `.tmp-<UUID>` files in the same directory, renamed into place when complete. Beside them are
/// `.digest-key` (``digestKey()``) and `.purge-generation` (``purgeGeneration()``). Any other
/// file in the directory is left alone.
///
/// A file is read only when it is this process's user's and no one else may write it (checked
/// on the open descriptor, ``isOwnFile(_:)``): another local user who could write to the
/// directory once — before it was tightened, or through an older release that tightened it
/// without purging — may have planted files in it.
struct DiskCacheDirectory: Sendable {
    /// One file found by ``scan()``.
    struct File {
        var name: String
        var size: Int
        /// Modification time: the last write or cache hit.
        var modified: Date
        var isTemporary: Bool
    }

    /// What reading an entry file found.
    enum ReadResult {
        /// No such file (or no such directory).
        case missing
        /// The file exists but is not a complete entry of this format.
        case unusable
        /// The metadata and, when asked for, the body.
        case found(DiskCacheEntryFile.Metadata, body: Data?)
    }

    static let entryExtension = ".cache"
    static let temporaryPrefix = ".tmp-"
    /// The file that holds the key of the directory's digests (see ``digestKey()``).
    static let digestKeyName = ".digest-key"
    /// The file that holds the directory's purge generation (see ``purgeGeneration()``).
    static let purgeGenerationName = ".purge-generation"

    let path: String

    /// The file name for an entry filed under `key`: the first half of the SHA-256 digest of
    /// its URL (``namePrefix(forURL:)``), then the first half of the digest of the whole key.
    /// The entries of one URL — any namespace, method or credentials — are then found by
    /// listing the directory, without opening the others (``entryNames(withPrefixes:)``).
    /// 128 bits of each digest are plenty: a reader checks the key stored in the file.
    ///
    /// Before, names were the whole key's digest, and then the digest of a key text without
    /// length prefixes (``HTTPCacheKey/text``); entries with such names are never looked up
    /// again and go the way of the least recently used ones.
    static func fileName(for key: HTTPCacheKey) -> String {
        namePrefix(forURL: key.url) + String(SHA256.hex(key.text).prefix(namePrefixLength)) + entryExtension
    }

    /// The first ``namePrefixLength`` characters of the file names of `url`'s entries.
    static func namePrefix(forURL url: String) -> String {
        String(SHA256.hex(url).prefix(namePrefixLength))
    }

    /// How many hex digits of the URL's digest begin an entry's file name.
    static let namePrefixLength = 32

    static func isEntryName(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count == 64 + entryExtension.utf8.count, name.hasSuffix(entryExtension) else { return false }
        return utf8.prefix(64).allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    func filePath(_ name: String) -> String { path + "/" + name }

    /// Whether the directory may be used: missing (it is created `0700`), or a directory —
    /// not a symbolic link to one — owned by this process's user. One open to others is
    /// tightened to `0700` and purged first (``tighten()``). In a shared place such as `/tmp`,
    /// another user could otherwise create the directory first (or a link to theirs) and plant
    /// entries it would serve.
    ///
    /// Made before every read, write and removal of the store: the directory can be removed
    /// under the store (a purge of the caches folder) and made again by someone else.
    func isTrusted() -> Bool {
        switch FileStatus.look(at: path) {
        case .missing:
            // Trusted to be made: `createDirectory()` examines one that another store made
            // first. One that appears between this look and the read or write that follows is
            // used unexamined until the next look (a window the store's docs name).
            return true
        case .unexamined:
            return false
        case .found(let status):
            guard status.kind == .directory, status.owner == geteuid() else { return false }
            return status.permissions & 0o077 == 0 || tighten()
        }
    }

    /// Makes the directory owner-only (`0700`) and purges it, when it is this user's and open to
    /// others: whoever could write to it may have planted entries, temporary files, a key file
    /// whose key they know, or hard links to files of this user's. Entries and temporary files
    /// are removed, a key file is replaced by a new random key (stores that had read the old
    /// one take the new one at their next write, ``restoreDigestKey(_:)``) and the purge
    /// generation is replaced, so no response under way is stored afterwards.
    ///
    /// The directory is examined and changed through a descriptor opened without following a
    /// link: a link swapped in after ``isTrusted()`` looked is neither changed nor trusted.
    /// When two stores tighten at once, the second finds `0700` and purges nothing more.
    private func tighten() -> Bool {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return false }
        defer { close(directory) }
        guard let status = FileStatus.of(descriptor: directory), status.kind == .directory, status.owner == geteuid() else { return false }
        guard status.permissions & 0o077 != 0 else { return true }
        guard fchmod(directory, 0o700) == 0 else { return false }
        for name in listing() where name.hasPrefix(Self.temporaryPrefix) || Self.isEntryName(name) {
            unlinkat(directory, name, 0)
        }
        if unlinkat(directory, Self.digestKeyName, 0) == 0 {
            _ = linkFile(Self.digestKeyName, holding: CacheDigest.randomKey())
        }
        replacePurgeGeneration()
        return true
    }

    /// Whether a file (examined through its open descriptor) may be read as the store's own:
    /// owned by this process's user and writable by no one else. The store writes every file
    /// `0600`; another user's file, or one others may rewrite, may hold anything they chose.
    static func isOwnFile(_ status: FileStatus) -> Bool {
        status.kind == .regular && status.owner == geteuid() && status.permissions & 0o022 == 0
    }

    /// Whether a small file of the store's (the digest key, the purge generation) may be read:
    /// as ``isOwnFile(_:)``, and readable by no one else either — a key others could read is
    /// no secret.
    private static func isPrivateFile(_ status: FileStatus) -> Bool {
        isOwnFile(status) && status.permissions & 0o077 == 0
    }

    // MARK: Digest key and purge generation

    /// What a small file of the store's (``digestKeyName``, ``purgeGenerationName``) holds.
    private enum SmallFile {
        case contents(Data)
        /// No file (or no directory).
        case missing
        /// Not a regular file of the expected size that is this user's and private to them
        /// (``isPrivateFile(_:)``): a link, another size, another user's, open to others.
        case damaged
        /// It could not be read (too many open files, an I/O error): left alone.
        case unreadable
    }

    /// The key of the directory's digests of secrets (``DiskCacheStore/digestKey``): read from
    /// ``digestKeyName``, or drawn at random and linked into place whole (mode `0600`) when
    /// there is none or it is damaged (or not this user's alone). Stores sharing the directory
    /// agree: when two create it at once, one link wins and the other store reads the winner's
    /// key. `nil` when the directory is not trusted or the key can be neither read nor written.
    func digestKey() -> [UInt8]? {
        guard isTrusted() else { return nil }
        for _ in 0..<3 {
            switch readSmallFile(Self.digestKeyName, size: 32) {
            case .contents(let data): return Array(data)
            case .unreadable: return nil
            case .damaged: removeFile(Self.digestKeyName)
            case .missing: break
            }
            guard createDirectory() else { return nil }
            let key = CacheDigest.randomKey()
            switch linkFile(Self.digestKeyName, holding: key) {
            case true?: return key
            case false?: continue   // another store linked one first: read it
            case nil: return nil
            }
        }
        return nil
    }

    /// The key the directory holds now, after writing `key` back if the key file is missing
    /// (the directory was emptied under the store) or damaged: `key`, or the directory's other
    /// key — one another store linked first, or the new one a tightened directory got
    /// (``tighten()``). `nil` when the file can be neither read nor written.
    func restoreDigestKey(_ key: [UInt8]) -> [UInt8]? {
        for _ in 0..<2 {
            switch readSmallFile(Self.digestKeyName, size: 32) {
            case .contents(let data): return Array(data)
            case .unreadable: return nil
            case .damaged: removeFile(Self.digestKeyName)
            case .missing: break
            }
            switch linkFile(Self.digestKeyName, holding: key) {
            case true?: return key
            case false?: continue   // another store linked one first: read it
            case nil: return nil
            }
        }
        return nil
    }

    /// The directory's purge generation: 8 random bytes in ``purgeGenerationName`` (mode
    /// `0600`), replaced at every purge through any store on the directory, in any process
    /// (``replacePurgeGeneration()``). ``DiskCacheStore/purgeCount`` is made from it, so a purge
    /// through one store stops the responses under way through every other from being stored.
    ///
    /// A missing file is created, with a new random generation, and the directory with it: a
    /// directory removed and made again (the system purged the caches folder) never shows a
    /// generation read before. `nil` when the directory is not trusted or the file can be
    /// neither read nor written.
    func purgeGeneration() -> UInt64? {
        guard isTrusted() else { return nil }
        for _ in 0..<3 {
            switch readSmallFile(Self.purgeGenerationName, size: 8) {
            case .contents(let data): return data.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            case .unreadable: return nil
            case .damaged: removeFile(Self.purgeGenerationName)
            case .missing: break
            }
            guard createDirectory() else { return nil }
            let generation = UInt64.random(in: .min ... .max)
            switch linkFile(Self.purgeGenerationName, holding: Self.bytes(of: generation)) {
            case true?: return generation
            case false?: continue   // another store linked one first: read it
            case nil: return nil
            }
        }
        return nil
    }

    /// Gives the directory a new purge generation (``purgeGeneration()``): a new file renamed
    /// over the old one, so that readers find the old generation or the new one, never none.
    /// When the new one cannot be written (a full disk), the old file is removed instead and the
    /// next reader draws a new generation: either way no store reads the old one again.
    func replacePurgeGeneration() {
        let temporary = filePath(Self.temporaryPrefix + UUID().uuidString)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 {
            let written = Self.writeAll(descriptor, Self.bytes(of: UInt64.random(in: .min ... .max))) && fsync(descriptor) == 0
            close(descriptor)
            if written, rename(temporary, filePath(Self.purgeGenerationName)) == 0 { return }
            unlink(temporary)
        }
        removeFile(Self.purgeGenerationName)
    }

    /// `value` as 8 bytes, most significant first.
    private static func bytes(of value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }

    /// Links a new file `name` holding `bytes` into place (mode `0600`): `true` when linked,
    /// `false` when a file is there already, `nil` when it could not be written.
    private func linkFile(_ name: String, holding bytes: [UInt8]) -> Bool? {
        let temporary = filePath(Self.temporaryPrefix + UUID().uuidString)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return nil }
        defer { unlink(temporary) }
        let written = Self.writeAll(descriptor, bytes) && fsync(descriptor) == 0
        close(descriptor)
        guard written else { return nil }
        if link(temporary, filePath(name)) == 0 { return true }
        return errno == EEXIST ? false : nil
    }

    /// The small file `name`, opened as entries are (no link followed, no FIFO waited on), when
    /// it is a private file of this user's (``isPrivateFile(_:)``) of exactly `size` bytes.
    private func readSmallFile(_ name: String, size: Int) -> SmallFile {
        let descriptor = NoFollowFile.openForReading(filePath(name))
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: return .missing
            case ELOOP: return .damaged
            default: return .unreadable
            }
        }
        defer { close(descriptor) }
        guard let status = FileStatus.of(descriptor: descriptor), Self.isPrivateFile(status), status.size == size else { return .damaged }
        guard let data = NoFollowFile.readExactly(descriptor, count: size) else { return .unreadable }
        return .contents(data)
    }
}
