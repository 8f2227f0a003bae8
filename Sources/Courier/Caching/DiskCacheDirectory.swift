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
/// `.tmp-<UUID>` files in the same directory, renamed into place when complete. Any other file
/// in the directory is left alone.
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

    let path: String

    /// The file name for an entry filed under `key`: the first half of the SHA-256 digest of
    /// its URL (``namePrefix(forURL:)``), then the first half of the digest of the whole key.
    /// The entries of one URL — any namespace, method or credentials — are then found by
    /// listing the directory, without opening the others (``entryNames(withPrefixes:)``).
    /// 128 bits of each digest are plenty: a reader checks the key stored in the file.
    ///
    /// Before, names were the whole key's digest; entries with such names are never looked up
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

    private func filePath(_ name: String) -> String { path + "/" + name }

    /// Whether the directory may be used: missing (it is created `0700`), or a directory —
    /// not a symbolic link to one — owned by this process's user. One open to others is
    /// tightened to `0700` first. In a shared place such as `/tmp`, another user could otherwise
    /// create the directory first (or a link to theirs) and plant entries it would serve.
    ///
    /// Made before every read and write of the store: the directory can be removed under the
    /// store (a purge of the caches folder) and made again by someone else.
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
            return status.permissions & 0o077 == 0 || chmod(path, 0o700) == 0
        }
    }

    // MARK: Digest key

    /// What ``digestKeyName`` holds.
    private enum KeyFile {
        case key([UInt8])
        /// No file (or no directory).
        case missing
        /// Not a 32-byte regular file: a link, another size.
        case damaged
        /// It could not be read (too many open files, an I/O error): left alone.
        case unreadable
    }

    /// The key of the directory's digests of secrets (``DiskCacheStore/digestKey``): read from
    /// ``digestKeyName``, or drawn at random and linked into place whole (mode `0600`) when
    /// there is none or it is damaged. Stores sharing the directory agree: when two create it
    /// at once, one link wins and the other store reads the winner's key. `nil` when the
    /// directory is not trusted or the key can be neither read nor written.
    func digestKey() -> [UInt8]? {
        guard isTrusted() else { return nil }
        for _ in 0..<3 {
            switch readKeyFile() {
            case .key(let key): return key
            case .unreadable: return nil
            case .damaged: unlink(filePath(Self.digestKeyName))
            case .missing: break
            }
            guard createDirectory() else { return nil }
            let key = CacheDigest.randomKey()
            switch linkKeyFile(key) {
            case true?: return key
            case false?: continue   // another store linked one first: read it
            case nil: return nil
            }
        }
        return nil
    }

    /// Writes `key` back when the key file is missing (the directory was emptied under the store).
    func restoreDigestKey(_ key: [UInt8]) {
        guard case .missing = readKeyFile() else { return }
        _ = linkKeyFile(key)
    }

    /// Links a new key file holding `key` into place: `true` when linked, `false` when a file
    /// is there already, `nil` when it could not be written.
    private func linkKeyFile(_ key: [UInt8]) -> Bool? {
        let temporary = filePath(Self.temporaryPrefix + UUID().uuidString)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return nil }
        defer { unlink(temporary) }
        let written = Self.writeAll(descriptor, key) && fsync(descriptor) == 0
        close(descriptor)
        guard written else { return nil }
        if link(temporary, filePath(Self.digestKeyName)) == 0 { return true }
        return errno == EEXIST ? false : nil
    }

    /// The key file, opened as entries are (no link followed, no FIFO waited on).
    private func readKeyFile() -> KeyFile {
        let descriptor = NoFollowFile.openForReading(filePath(Self.digestKeyName))
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: return .missing
            case ELOOP: return .damaged
            default: return .unreadable
            }
        }
        defer { close(descriptor) }
        let size = lseek(descriptor, 0, SEEK_END)
        guard size >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else { return .damaged }   // a FIFO, a socket
        guard size == 32 else { return .damaged }
        guard let data = NoFollowFile.readExactly(descriptor, count: 32) else { return .unreadable }
        return .key(Array(data))
    }

    // MARK: Reading

    /// Reads the entry file `name`: its metadata always, its body when `body` is true. A file
    /// larger than `maxFileSize` is ``ReadResult/unusable``. With `touch`, a complete entry's
    /// modification time is set to now (the store's least-recently-used clock).
    func readEntry(_ name: String, body: Bool, maxFileSize: Int, touch: Bool) -> ReadResult {
        // O_NOFOLLOW and O_NONBLOCK: a symbolic link or a FIFO under an entry's name is
        // unusable at once, rather than read elsewhere or blocking the reader forever.
        let descriptor = NoFollowFile.openForReading(filePath(name))
        guard descriptor >= 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unusable }
        defer { close(descriptor) }
        // The size of what was opened by seeking to its end (a FIFO or socket cannot seek);
        // a directory fails at the first read.
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else { return .unusable }
        let fileSize = Int(end)
        guard fileSize <= maxFileSize,
              let prefix = NoFollowFile.readExactly(descriptor, count: DiskCacheEntryFile.prefixSize),
              let metadataLength = DiskCacheEntryFile.metadataLength(prefix: prefix, fileSize: fileSize),
              let json = NoFollowFile.readExactly(descriptor, count: metadataLength),
              let metadata = DiskCacheEntryFile.metadata(from: json, fileSize: fileSize) else { return .unusable }
        guard body else { return .found(metadata, body: nil) }
        guard let bytes = NoFollowFile.readExactly(descriptor, count: metadata.bodyLength) else { return .unusable }
        if touch { _ = futimens(descriptor, nil) }
        return .found(metadata, body: bytes)
    }

    // MARK: Writing

    /// Writes `head` then `body` to a new owner-only temporary file, flushes it to disk and
    /// renames it to `name`, creating the directory (owner-only, `0700`) if it is missing.
    /// Returns the size of the file it replaced (0 if none), or `nil` when it wrote nothing.
    func writeEntry(_ name: String, head: Data, body: ArraySlice<UInt8>) -> Int? {
        let temporary = filePath(Self.temporaryPrefix + UUID().uuidString)
        var descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == ENOENT, createDirectory() {
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { return nil }
        // fsync before rename: after a power loss the new name holds the whole entry, not a
        // file of the right length whose blocks were never written.
        let written = Self.writeAll(descriptor, head) && Self.writeAll(descriptor, body) && fsync(descriptor) == 0
        close(descriptor)
        let replacedSize = FileStatus.of(path: filePath(name))?.size ?? 0
        guard written, rename(temporary, filePath(name)) == 0 else {
            unlink(temporary)
            return nil
        }
        return replacedSize
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
    }

    /// Creates the directory with mode `0700` (its missing parents with the default mode).
    /// One that another store (or anyone) made since ``isTrusted()`` looked is used only if it
    /// passes that look now: not a link planted in a shared parent, not another user's.
    private func createDirectory() -> Bool {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        if mkdir(path, 0o700) == 0 { return true }
        return errno == EEXIST && isTrusted()
    }

    // MARK: Listing and removing

    /// Removes the file `name`; returns its size, or `nil` when there was none to remove.
    @discardableResult
    func removeFile(_ name: String) -> Int? {
        let size = FileStatus.of(path: filePath(name))?.size ?? 0
        return unlink(filePath(name)) == 0 ? size : nil
    }

    /// The entry files whose names begin with one of `prefixes` (``namePrefix(forURL:)``):
    /// the directory is listed, no file is opened or examined.
    func entryNames(withPrefixes prefixes: Set<String>) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
        return names.filter { name in prefixes.contains(where: name.hasPrefix) && Self.isEntryName(name) }
    }

    /// The entry files and temporary files in the directory with their sizes and modification
    /// times; empty when the directory does not exist or cannot be read.
    func scan() -> [File] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
        var files: [File] = []
        files.reserveCapacity(names.count)
        for name in names {
            let isTemporary = name.hasPrefix(Self.temporaryPrefix)
            guard isTemporary || Self.isEntryName(name) else { continue }
            guard let status = FileStatus.of(path: filePath(name)), status.kind == .regular else { continue }
            files.append(File(name: name, size: status.size, modified: status.modified, isTemporary: isTemporary))
        }
        return files
    }
}
