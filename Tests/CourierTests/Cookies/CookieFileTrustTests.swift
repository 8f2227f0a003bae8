@testable import Courier
import Foundation
import InMemoryLogging
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Cookie jar: which files are loaded")
struct CookieFileTrustTests {
    /// Writes a jar holding `p=1` for example.com to `file`, as the jar writes it (0600).
    private func writeGoodFile(_ file: URL) {
        let jar = CookieJar(persistingTo: file)
        jar.receive(["p=1; Max-Age=3600"], from: "https://example.com/")
        jar.flush()
    }

    /// Whether `entries` hold a warning about the cookie file that says `text`.
    private func warned(_ entries: [InMemoryLogHandler.Entry], _ text: String) -> Bool {
        entries.contains { $0.level == .warning && "\($0.message)".contains("Cookie file") && "\($0.message)".contains(text) }
    }

    @Test("the jar's own file (0600), and one others may only read (0644, 0400), loads", arguments: [0o600, 0o644, 0o400])
    func ownFileLoads(_ mode: Int) throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        writeGoodFile(file)
        #expect(chmod(file.path, mode_t(mode)) == 0)
        let (logger, handler) = recordingCookieLogger()
        #expect(CookieJar(persistingTo: file, logger: logger).header(for: "https://example.com/") == "p=1")
        #expect(!handler.entries.contains { $0.level == .warning })
    }

    @Test("a symbolic link to a real cookie file is refused with a warning, and the next change replaces the link, not its target")
    func symbolicLink() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let target = file.deletingLastPathComponent().appendingPathComponent("elsewhere.json")
        writeGoodFile(target)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
        let (logger, handler) = recordingCookieLogger()
        let jar = CookieJar(persistingTo: file, logger: logger)
        #expect(jar.cookies.isEmpty)
        #expect(warned(handler.entries, "symbolic link"))

        jar.receive(["q=2; Max-Age=3600"], from: "https://example.com/")
        jar.flush()
        #expect(FileStatus.of(path: file.path)?.kind == .regular)
        #expect(CookieJar(persistingTo: file).header(for: "https://example.com/") == "q=2")
        #expect(CookieJar(persistingTo: target).header(for: "https://example.com/") == "p=1")
    }

    @Test("a symbolic link that points nowhere is refused with a warning, not taken for a missing file")
    func danglingLink() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: "/nonexistent-\(UUID().uuidString)")
        let (logger, handler) = recordingCookieLogger()
        #expect(CookieJar(persistingTo: file, logger: logger).cookies.isEmpty)
        #expect(warned(handler.entries, "symbolic link"))
    }

    @Test("a FIFO under the file's name is refused at once, instead of blocking the jar's creation for ever")
    func fifo() async throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try #require(mkfifo(file.path, 0o600) == 0)
        let (logger, handler) = recordingCookieLogger()
        // Made on a thread of its own, so a jar that blocks (the bug) fails the test after the
        // guard instead of hanging it, and holds no thread of Swift concurrency meanwhile. The
        // jar is stored once made: the lock is never held across the creation.
        let made = Locked<CookieJar?>(nil)
        Thread.detachNewThread {
            let jar = CookieJar(persistingTo: file, logger: logger)
            made.withLock { $0 = jar }
        }
        // A generous guard for a loaded machine: the refusal takes microseconds.
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while made.withLock({ $0 == nil }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        guard let jar = made.withLock({ $0 }) else {
            // Let the blocked open return (a writer comes) and its read end (the writer leaves),
            // so the failed test leaves no thread behind.
            let writer = open(file.path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            Issue.record("creating the jar was still blocked on the FIFO after 30 s")
            return
        }
        #expect(jar.cookies.isEmpty)
        #expect(warned(handler.entries, "not a regular file"))
        // The jar works in memory and its first write replaces the FIFO with its own file.
        jar.receive(["p=1; Max-Age=3600"], from: "https://example.com/")
        jar.flush()
        #expect(CookieJar(persistingTo: file).header(for: "https://example.com/") == "p=1")
    }

    @Test("a directory under the file's name is refused with a warning")
    func directory() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        let (logger, handler) = recordingCookieLogger()
        #expect(CookieJar(persistingTo: file, logger: logger).cookies.isEmpty)
        #expect(warned(handler.entries, "is a directory"))
    }

    @Test("a cookie file that group or others can write is refused with a warning (anyone could have planted cookies)",
          arguments: [0o666, 0o660, 0o602, 0o620])
    func writableByOthers(_ mode: Int) throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        writeGoodFile(file)
        #expect(chmod(file.path, mode_t(mode)) == 0)
        let (logger, handler) = recordingCookieLogger()
        #expect(CookieJar(persistingTo: file, logger: logger).cookies.isEmpty)
        #expect(warned(handler.entries, "writable by other users (mode 0\(String(mode, radix: 8)))"))
    }

    /// Whether this process can give a file to another user (`nobody`, uid 65534): root can,
    /// unless in a user namespace that does not map that uid; no one else can.
    static func canGiveFilesAway() -> Bool {
        guard geteuid() == 0 else { return false }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("courier-chown-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: path, contents: nil) else { return false }
        defer { unlink(path) }
        return chown(path, 65_534, 65_534) == 0
    }

    // Only a process that can give a file away can set this case up (root, as in CI's
    // containers); elsewhere it is skipped. The check it covers — the owner of what was opened
    // against geteuid() — is one comparison on the same fstat the kind and mode tests go through.
    @Test("another user's cookie file is refused with a warning",
          .enabled(if: CookieFileTrustTests.canGiveFilesAway(), "only root can give a file to another user"))
    func anotherUsersFile() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        writeGoodFile(file)
        try #require(chown(file.path, 65_534, 65_534) == 0)   // nobody
        let (logger, handler) = recordingCookieLogger()
        #expect(CookieJar(persistingTo: file, logger: logger).cookies.isEmpty)
        #expect(warned(handler.entries, "belongs to another user (uid 65534)"))
    }
}
