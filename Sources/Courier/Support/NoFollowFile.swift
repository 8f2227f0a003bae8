import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a file whose name someone else may have taken first — a disk cache entry, the
/// cache's digest key, a cookie jar's file — the one way Courier does it:
///
/// - `O_NOFOLLOW`: a symbolic link planted under the name fails to open (`ELOOP`) instead of
///   opening whatever it points to;
/// - `O_NONBLOCK`: a FIFO opens at once instead of blocking the caller until a writer comes,
///   for ever if none does (it changes nothing for a regular file, whose reads never wait);
/// - `O_CLOEXEC`: the descriptor does not leak into a process the app starts meanwhile.
///
/// The caller then checks what it opened — by its size (``DiskCacheDirectory``: a FIFO or a
/// socket cannot seek) or by ``FileStatus/of(descriptor:)`` (the cookie file: a regular file
/// of this user that others cannot write) — and reads it with ``readExactly(_:count:)`` or
/// ``readToEnd(_:limit:)``.
enum NoFollowFile {
    /// Opens `path` for reading as described above: the descriptor, or -1 with `errno` set
    /// (`ENOENT`: nothing there; `ELOOP`: a symbolic link).
    static func openForReading(_ path: String) -> Int32 {
        open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    }

    /// Reads exactly `count` bytes, or returns `nil` (end of file or an error first).
    static func readExactly(_ descriptor: Int32, count: Int) -> Data? {
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < count {
                let got = read(descriptor, buffer.baseAddress! + offset, count - offset)
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
                offset += got
            }
            return true
        }
        return complete ? data : nil
    }

    /// Reads to the end of the file, but no more than `limit` bytes (ask for one more than
    /// you accept to tell a file that is too large); `nil` on a read error, with `errno` set.
    /// Reads in 64 KiB pieces, so a limit far above the file's size allocates nothing for it.
    static func readToEnd(_ descriptor: Int32, limit: Int) -> Data? {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count < limit {
            let wanted = min(chunk.count, limit - data.count)
            let got = chunk.withUnsafeMutableBytes { buffer in read(descriptor, buffer.baseAddress!, wanted) }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            data.append(contentsOf: chunk[..<got])
        }
        return data
    }
}
