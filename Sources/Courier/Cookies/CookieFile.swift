import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a persistent ``CookieJar`` keeps its cookies: one JSON file, replaced whole on every
/// change by writing a temporary file beside it (created owner-only, `0600`) and renaming it
/// over the old one, so a crash leaves the old file or the new one, never half of one. A file
/// that cannot be read or decoded loads as an empty jar, with a warning in the log.
///
/// The file is opened as the disk cache opens its entries (``NoFollowFile``) and loaded only if
/// it is what the jar itself writes: a regular file of this process's user that no other user
/// can write. A symbolic link (followed, it would load another file's cookies), a FIFO (opened
/// plainly, it would block the jar's creation until a writer came, for ever if none did), a
/// directory or a device, another user's file, or a file group or others can write (anyone
/// could have planted cookies in it, a session fixation) is refused: an empty jar and a warning.
struct CookieFile: Sendable {
    /// The file's contents.
    struct Contents: Codable {
        var format = "courier-cookies"
        var version = 1
        var cookies: [Cookie]
    }

    let url: URL
    /// Replaces the file's contents (``replace(_:with:)``; tests put a slow or failing one in).
    let replaceContents: @Sendable (URL, Data) throws -> Void
    /// The largest file read back (a file larger than any jar could write is not a cookie file).
    let maxBytes: Int
    /// The last revision and cookies written: a slower writer never replaces a newer file, and
    /// a change that leaves the saved cookies as they were (a session cookie set, when those
    /// are not saved) writes nothing. `failing` is set while writes fail: a failure that repeats
    /// (a full disk, a read-only directory) is a `warning` once, then `debug` until a write
    /// succeeds again, so the log is not flooded with one warning per cookie change.
    private let written = Locked((revision: -1, cookies: [Cookie]?.none, failing: false))

    init(url: URL, limits: CookieJar.Limits, write: @escaping @Sendable (URL, Data) throws -> Void = CookieFile.replace) {
        self.url = url
        self.replaceContents = write
        // What one cookie takes in the file at most: its name and value, and its attributes
        // (domain, path), each byte written twice at most (`JSONEncoder` escapes `"`, `\` and
        // `/`; the parser refuses the control characters it would write as `\uXXXX`), plus the
        // keys, dates and flags. Saturating: limits as large as `Int.max` (no limit in practice)
        // must not trap.
        func saturating(_ result: (partialValue: Int, overflow: Bool)) -> Int { result.overflow ? .max : result.partialValue }
        let text = saturating(limits.maxCookieBytes.addingReportingOverflow(3 * SetCookieParser.maxAttributeValueBytes))
        let perCookie = saturating(saturating(text.multipliedReportingOverflow(by: 2)).addingReportingOverflow(512))
        self.maxBytes = min(256 * 1024 * 1024, saturating(limits.maxCookies.multipliedReportingOverflow(by: perCookie)))
    }

    /// The cookies in the file; empty (and a warning logged) when the file is refused (see
    /// ``CookieFile``), unreadable, too large, truncated or not a cookie file. A missing file is
    /// a new jar and is not logged.
    func load(logger: Logger) -> [Cookie] {
        let data: Data
        switch readTrustedFile() {
        case .missing:
            return []
        case .refused(let reason):
            logger.warning("Cookie file \(reason); starting with an empty jar", metadata: ["file.path": "\(url.path)"])
            return []
        case .contents(let contents):
            data = contents
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            let contents = try decoder.decode(Contents.self, from: data)
            guard contents.format == "courier-cookies", contents.version == 1 else {
                logger.warning("Cookie file has an unknown format (\(LogSafeText.escape(String(contents.format.prefix(40)))) v\(contents.version)); starting with an empty jar", metadata: ["file.path": "\(url.path)"])
                return []
            }
            return contents.cookies
        } catch {
            logger.warning("Cookie file could not be read (\(type(of: error))); starting with an empty jar", metadata: ["file.path": "\(url.path)"])
            return []
        }
    }

    /// What reading the file found.
    private enum ReadResult {
        /// Nothing is there: a new jar.
        case missing
        /// Not loaded; the reason completes "Cookie file …" in the log.
        case refused(String)
        /// The file's bytes, for the decoder.
        case contents(Data)
    }

    /// Opens the file without following a link or waiting on a FIFO, checks what was opened
    /// (``FileStatus/of(descriptor:)``: the descriptor, so nothing can be swapped in between the
    /// check and the read) and reads it, at most ``maxBytes``.
    private func readTrustedFile() -> ReadResult {
        let descriptor = NoFollowFile.openForReading(url.path)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT: return .missing
            case ELOOP: return .refused("is a symbolic link, which is not followed")
            default: return .refused("could not be opened (\(String(cString: strerror(code))))")
            }
        }
        defer { close(descriptor) }
        guard let status = FileStatus.of(descriptor: descriptor) else {
            return .refused("could not be examined (\(String(cString: strerror(errno))))")
        }
        switch status.kind {
        case .regular: break
        case .directory: return .refused("is a directory")
        case .other: return .refused("is not a regular file (a FIFO, a socket or a device)")
        }
        // Trusted only if no one but this user can have written it (OpenSSH's rule for
        // `authorized_keys`). Readability is not checked: a file others can read has leaked its
        // cookies already, refusing it would not take them back, and the jar's next write
        // replaces it with an owner-only one.
        guard status.owner == geteuid() else { return .refused("belongs to another user (uid \(status.owner))") }
        guard status.permissions & 0o022 == 0 else {
            return .refused("is writable by other users (mode 0\(String(status.permissions, radix: 8)))")
        }
        // Larger than any jar could write: refused unread (the size read back is checked too,
        // as the file may grow in between).
        guard status.size <= maxBytes else { return .refused("is larger than \(maxBytes) bytes") }
        guard let data = NoFollowFile.readToEnd(descriptor, limit: maxBytes + 1) else {
            return .refused("could not be read (\(String(cString: strerror(errno))))")
        }
        guard data.count <= maxBytes else { return .refused("is larger than \(maxBytes) bytes") }
        return .contents(data)
    }

    /// Writes `cookies` as `revision`, unless a newer revision was written already; returns
    /// `false` when writing failed. Failures are logged: a request never fails because its
    /// cookies could not be saved.
    @discardableResult
    func save(_ cookies: [Cookie], revision: Int, logger: Logger) -> Bool {
        written.withLock { last in
            guard revision > last.revision else { return true }
            guard cookies != last.cookies else {
                last.revision = revision
                return true
            }
            do {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .secondsSince1970
                encoder.outputFormatting = [.sortedKeys]
                try replaceContents(url, try encoder.encode(Contents(cookies: cookies)))
                if last.failing {
                    logger.info("Cookie file written again after failed writes", metadata: ["file.path": "\(url.path)"])
                }
                last = (revision, cookies, false)
                return true
            } catch {
                if last.failing {
                    logger.debug("Cookie file could not be written (still): \(error)", metadata: ["file.path": "\(url.path)"])
                } else {
                    logger.warning("Cookie file could not be written: \(error); later failures are logged at debug until a write succeeds",
                                   metadata: ["file.path": "\(url.path)"])
                }
                last.failing = true
                return false
            }
        }
    }

    /// Writes `data` to a new owner-only temporary file in the same directory, flushes it, and
    /// renames it over `url`.
    static func replace(_ url: URL, with data: Data) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CookieFileError(operation: "create \(temporary.lastPathComponent)", code: errno) }
        var failure: CookieFileError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = CookieFileError(operation: "write", code: errno)
                    return
                }
                offset += count
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = CookieFileError(operation: "flush", code: errno) }
        close(descriptor)
        if failure == nil, rename(temporary.path, url.path) != 0 { failure = CookieFileError(operation: "rename", code: errno) }
        if let failure {
            unlink(temporary.path)
            throw failure
        }
        #else
        try data.write(to: url, options: .atomic)
        #endif
    }
}

/// A system call on the cookie file failed.
struct CookieFileError: Error, CustomStringConvertible {
    var operation: String
    var code: Int32
    var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
}
