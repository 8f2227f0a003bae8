import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The entries' files: reading and writing one, listing and removing them — each through the
/// directory checked by ``DiskCacheDirectory/isTrusted()``, never following a link.
extension DiskCacheDirectory {
    // MARK: Reading

    /// Reads the entry file `name`: its metadata always, its body when `body` is true. A file
    /// larger than `maxFileSize`, or that is not the store's own (``isOwnFile(_:)``), is
    /// ``ReadResult/unusable``. With `touch`, a complete entry's
    /// modification time is set to now (the store's least-recently-used clock).
    func readEntry(_ name: String, body: Bool, maxFileSize: Int, touch: Bool) -> ReadResult {
        // O_NOFOLLOW and O_NONBLOCK: a symbolic link or a FIFO under an entry's name is
        // unusable at once, rather than read elsewhere or blocking the reader forever.
        let descriptor = NoFollowFile.openForReading(filePath(name))
        guard descriptor >= 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unusable }
        defer { close(descriptor) }
        // What was opened, whatever the name points to by now: a regular file (not a FIFO, a
        // socket or a directory) of this user's that no one else may write. Another user's
        // file is unusable — removed by the store, never served.
        guard let status = FileStatus.of(descriptor: descriptor), Self.isOwnFile(status) else { return .unusable }
        let fileSize = status.size
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

    static func writeAll(_ descriptor: Int32, _ bytes: some ContiguousBytes) -> Bool {
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
    func createDirectory() -> Bool {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        if mkdir(path, 0o700) == 0 { return true }
        return errno == EEXIST && isTrusted()
    }

    // MARK: Listing and removing

    /// Removes the file `name`; returns its size, or `nil` when there was none to remove.
    ///
    /// The file is unlinked inside the directory opened without following a link, and only when
    /// that directory is this user's: a directory swapped for a link after the store looked at
    /// it (``isTrusted()``) is not reached through the link, so nothing in its target is removed.
    @discardableResult
    func removeFile(_ name: String) -> Int? {
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        guard let status = FileStatus.of(descriptor: directory), status.kind == .directory, status.owner == geteuid() else { return nil }
        let size = FileStatus.of(name, in: directory)?.size ?? 0
        return unlinkat(directory, name, 0) == 0 ? size : nil
    }

    /// The names in the directory; empty when it does not exist or cannot be read.
    func listing() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    /// The entry files whose names begin with one of `prefixes` (``namePrefix(forURL:)``):
    /// the directory is listed, no file is opened or examined.
    func entryNames(withPrefixes prefixes: Set<String>) -> [String] {
        listing().filter { name in prefixes.contains(where: name.hasPrefix) && Self.isEntryName(name) }
    }

    /// The entry files and temporary files in the directory with their sizes and modification
    /// times; empty when the directory does not exist or cannot be read.
    func scan() -> [File] {
        let names = listing()
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
