import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A download's partial file beside its destination (`.<name>.<8 hex digits>.courier-download`):
/// created or reopened, written, checked against a resume token, hashed, and moved into place.
///
/// Every blocking call runs off Swift's cooperative pool: short ones (a chunk's write, a
/// truncation, the last block's digest) on the file's own serial queue, which also keeps
/// them in order; hashing the whole file, which takes seconds for a large one, on a thread of
/// its own, reading 1 MiB at a time (constant memory).
final class PartialFile: Sendable {
    /// The block whose SHA-256 a resume token keeps (its last ≤ 64 KiB).
    static let tailBlockSize = 64 * 1024

    /// Where the file is.
    let url: URL
    /// The descriptor, open for reading and writing; writes go through ``handle``.
    let handle: FileHandle
    private let queue: DispatchQueue

    private init(url: URL, descriptor: Int32) {
        self.url = url
        self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.queue = DispatchQueue(label: "Courier.download-file")
    }

    /// The file's name.
    var name: String { url.lastPathComponent }

    /// A new file with a name of its own beside `destination` (`O_EXCL`: never one already
    /// there, so two downloads to one destination never share one).
    static func create(beside destination: URL) async -> Result<PartialFile, DownloadFileError> {
        let url = destination.deletingLastPathComponent()
            .appendingPathComponent(APIClient.partialFileName(for: destination.lastPathComponent, tag: String(UUID().uuidString.prefix(8))))
        return await offPool {
            let descriptor = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)   // less the umask, as any new file
            guard descriptor >= 0 else {
                // The file system's reason (no such directory, no permission, …), for the destination.
                return .failure(DownloadFileError(path: destination.path, code: POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
            return .success(PartialFile(url: url, descriptor: descriptor))
        }
    }

    /// The partial file called `name` beside `destination`, when there is one Courier may
    /// write: a regular file of this user (a symbolic link planted under the name is not
    /// followed), with at least `minimumLength` bytes.
    static func reopen(named name: String, beside destination: URL, minimumLength: Int64) async -> PartialFile? {
        let url = destination.deletingLastPathComponent().appendingPathComponent(name)
        return await offPool { () -> PartialFile? in
            let descriptor = open(url.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard descriptor >= 0 else { return nil }
            guard let status = FileStatus.of(descriptor: descriptor), status.kind == .regular, status.owner == geteuid(),
                  Int64(status.size) >= minimumLength else {
                closeDescriptor(descriptor)
                return nil
            }
            return PartialFile(url: url, descriptor: descriptor)
        }
    }

    /// Runs `work` on the file's queue and returns its result.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Cuts the file to `length` bytes (the next write goes there).
    func truncate(to length: Int64) async throws {
        try await run { [handle] in try handle.truncate(atOffset: UInt64(length)) }
    }

    /// The SHA-256 (hexadecimal) of the block of at most ``tailBlockSize`` bytes ending at
    /// `end`, and its length.
    func tailDigest(endingAt end: Int64) async throws -> (digest: String, length: Int) {
        try await run { [handle] in
            let length = Int(min(end, Int64(Self.tailBlockSize)))
            let bytes = try Self.read(handle.fileDescriptor, at: end - Int64(length), count: length)
            return (SHA256.hex(SHA256.digest(bytes)), length)
        }
    }

    /// The SHA-256 (hexadecimal) of the file's first `length` bytes, read 1 MiB at a time on a
    /// thread of its own.
    func sha256(length: Int64) async throws -> String {
        let descriptor = handle.fileDescriptor
        return try await withCheckedThrowingContinuation { continuation in
            // A thread, not a global queue: on Linux those share their threads with the
            // cooperative pool, and this takes seconds for a large file.
            Thread.detachNewThread { [self] in
                continuation.resume(with: Result {
                    var state = SHA256.State()
                    var buffer = [UInt8](repeating: 0, count: 1 << 20)
                    var offset: Int64 = 0
                    while offset < length {
                        let wanted = Int(min(Int64(buffer.count), length - offset))
                        let got = try buffer.withUnsafeMutableBytes { raw in try Self.readFully(descriptor, into: raw.baseAddress!, at: offset, count: wanted) }
                        buffer.withUnsafeBufferPointer { state.update(UnsafeBufferPointer(rebasing: $0[0..<got])) }
                        offset += Int64(got)
                    }
                    withExtendedLifetime(self) {}
                    return SHA256.hex(state.finalize())
                })
            }
        }
    }

    /// Closes the file and moves it to `destination`, replacing any file there in one step
    /// (rename(2): the file sits beside the destination, on its volume): two downloads
    /// finishing at once cannot both find the place empty, and a reader never sees the
    /// destination missing.
    func close(movingTo destination: URL) async throws {
        try await run { [handle, url] in
            try handle.close()
            if rename(url.path, destination.path) != 0 {
                let code = POSIXErrorCode(rawValue: errno) ?? .EIO
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path, NSUnderlyingErrorKey: POSIXError(code)])
            }
        }
    }

    /// Closes the file, keeping it (for a resume token).
    func close() async {
        _ = try? await run { [handle] in try handle.close() }
    }

    /// Closes and removes the file.
    func remove() async {
        _ = try? await run { [handle, url] in
            try? handle.close()
            unlink(url.path)
        }
    }

    /// Exactly `count` bytes at `offset`, or the file's error (`EIO` for a file that ended first).
    private static func read(_ descriptor: Int32, at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let got = try bytes.withUnsafeMutableBytes { raw in try readFully(descriptor, into: raw.baseAddress!, at: offset, count: count) }
        guard got == count else { throw POSIXError(.EIO) }
        return bytes
    }

    /// Reads up to `count` bytes at `offset` (pread(2): the write position does not move);
    /// fewer only at the end of the file.
    private static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, at offset: Int64, count: Int) throws -> Int {
        var done = 0
        while done < count {
            let got = pread(descriptor, buffer + done, count - done, off_t(offset) + off_t(done))
            if got < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// Runs `work` off the cooperative pool before a file (and its queue) exists.
    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "Courier.download-file").async { continuation.resume(returning: work()) }
        }
    }
}

/// close(2), which ``PartialFile``'s own `close` methods shadow inside it.
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}
