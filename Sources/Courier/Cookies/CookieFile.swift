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
    /// are not saved) writes nothing.
    private let written = Locked((revision: -1, cookies: [Cookie]?.none))

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

    /// The cookies in the file; empty (and a warning logged) when the file is unreadable, too
    /// large, truncated or not a cookie file. A missing file is a new jar and is not logged.
    func load(logger: Logger) -> [Cookie] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            let data = try handle.read(upToCount: maxBytes + 1) ?? Data()
            guard data.count <= maxBytes else {
                logger.warning("Cookie file is larger than \(maxBytes) bytes; starting with an empty jar", metadata: ["file.path": "\(url.path)"])
                return []
            }
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
                last = (revision, cookies)
                return true
            } catch {
                logger.warning("Cookie file could not be written: \(error)", metadata: ["file.path": "\(url.path)"])
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
