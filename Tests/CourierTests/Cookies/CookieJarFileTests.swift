@testable import Courier
import Foundation
import InMemoryLogging
import Logging
import Testing
import CourierTesting

@Suite("Cookie jar: persistence")
struct CookieJarFileTests {
    @Test("persistent cookies survive a new jar on the same file; session cookies do not, unless asked")
    func roundTrip() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(persistingTo: file, clock: clock)
        jar.receive(["p=1; Max-Age=3600; Secure; HttpOnly; SameSite=Lax; Domain=example.com; Path=/api", "s=1"], from: "https://www.example.com/")
        jar.flush()
        let reloaded = CookieJar(persistingTo: file, clock: clock)
        #expect(reloaded.cookies == jar.cookies.filter { $0.name == "p" })
        #expect(reloaded.header(for: "https://example.com/api/x") == "p=1")

        let withSessions = CookieJar(persistingTo: file, persistsSessionCookies: true, clock: clock)
        withSessions.receive(["s=1"], from: "https://www.example.com/")
        withSessions.flush()
        #expect(CookieJar(persistingTo: file, clock: clock).cookies.map(\.name).sorted() == ["p", "s"])
    }

    @Test("a file whose __Host- or __Secure- cookies break their prefix's rules loads without them (checked as if a server had sent them)")
    func prefixRulesOnLoad() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(persistingTo: file, clock: clock)
        jar.receive(["xxHost-b=1; Max-Age=3600; Domain=example.com; Path=/", "xxSecure-a=1; Max-Age=3600", "kept=1; Max-Age=3600"],
                    from: "http://www.example.com/")
        jar.flush()
        // An edited or old file: the names now carry the prefixes, the attributes do not fit them.
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("xxHost-b") && text.contains("xxSecure-a"))
        try text.replacingOccurrences(of: "xxHost-b", with: "__Host-b").replacingOccurrences(of: "xxSecure-a", with: "__secure-a")
            .write(to: file, atomically: true, encoding: .utf8)
        #expect(CookieJar(persistingTo: file, clock: clock).cookies.map(\.name) == ["kept"])
    }

    @Test("limits as large as Int allows make a working persistent jar, not an arithmetic trap")
    func hugeLimits() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let jar = CookieJar(persistingTo: file, limits: .init(maxCookieBytes: .max, maxCookies: .max))
        jar.receive(["p=1; Max-Age=3600"], from: "https://example.com/")
        jar.flush()
        #expect(CookieJar(persistingTo: file, limits: .init(maxCookieBytes: .max, maxCookies: .max)).header(for: "https://example.com/") == "p=1")
    }

    @Test("a jar full of the largest cookies, of characters JSON escapes (\\\", /), loads back from its own file")
    func escapedCookiesLoadBack() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let limits = CookieJar.Limits(maxCookies: 2)
        let jar = CookieJar(persistingTo: file, limits: limits)
        let value = String(repeating: "\"", count: 2_000) + String(repeating: "/", count: 2_000)
        let path = "/" + String(repeating: "/", count: 1_000)
        jar.receive(["a=\(value); Max-Age=3600; Path=\(path)", "b=\(value); Max-Age=3600; Path=\(path)"], from: "https://example.com\(path)")
        #expect(jar.cookies.count == 2)
        jar.flush()
        #expect(CookieJar(persistingTo: file, limits: limits).cookies.count == 2)
    }

    @Test("the file is owner-only (0600) and no temporary file is left behind")
    func permissions() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let jar = CookieJar(persistingTo: file)
        jar.receive(["p=1; Max-Age=60"], from: "https://example.com/")
        jar.flush()
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let entries = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(entries == ["cookies.json"])
    }

    @Test("expired cookies are dropped when the file is loaded")
    func expiredOnLoad() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let jar = CookieJar(persistingTo: file, clock: clock)
        jar.receive(["a=1; Max-Age=10", "b=1; Max-Age=1000"], from: "https://example.com/")
        jar.flush()
        clock.advance(by: 100)
        #expect(CookieJar(persistingTo: file, clock: clock).cookies.map(\.name) == ["b"])
    }

    @Test("clearing reaches the file")
    func clearingPersists() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let jar = CookieJar(persistingTo: file)
        jar.receive(["a=1; Max-Age=100"], from: "https://a.example/")
        jar.receive(["b=1; Max-Age=100"], from: "https://b.example/")
        jar.removeCookies(forDomain: "a.example")
        jar.flush()
        #expect(CookieJar(persistingTo: file).cookies.map(\.name) == ["b"])
        jar.removeAll()
        jar.flush()
        #expect(CookieJar(persistingTo: file).cookies.isEmpty)
    }

    @Test("a truncated, corrupt or foreign file is an empty jar and a logged warning, and is replaced on the next change",
          arguments: ["truncated", "garbage", "empty", "foreign", "wrong types", "hostile cookies"])
    func corruptFiles(_ kind: String) throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let good = CookieJar(persistingTo: file)
        good.receive(["a=1; Max-Age=100", "b=2; Max-Age=100"], from: "https://example.com/")
        good.flush()
        let data = try Data(contentsOf: file)
        let broken: Data
        switch kind {
        case "truncated": broken = data.prefix(data.count / 2)
        case "garbage": broken = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        case "empty": broken = Data()
        case "foreign": broken = Data(#"{"format":"something-else","version":1,"cookies":[]}"#.utf8)
        case "wrong types": broken = Data(#"{"format":"courier-cookies","version":1,"cookies":[{"name":5}]}"#.utf8)
        default:
            broken = Data(#"{"format":"courier-cookies","version":1,"cookies":[{"name":"x","value":"1","domain":"com","isHostOnly":false,"path":"/","isSecure":false,"isHTTPOnly":false,"createdAt":0,"lastAccessedAt":0},{"name":"","value":"1","domain":"example.com","isHostOnly":true,"path":"/","isSecure":false,"isHTTPOnly":false,"createdAt":0,"lastAccessedAt":0},{"name":"ok","value":"1","domain":"example.com","isHostOnly":true,"path":"/","isSecure":false,"isHTTPOnly":false,"createdAt":0,"lastAccessedAt":0}]}"#.utf8)
        }
        try broken.write(to: file)
        let (logger, handler) = recordingCookieLogger()
        let jar = CookieJar(persistingTo: file, persistsSessionCookies: true, logger: logger)
        if kind == "hostile cookies" {
            #expect(jar.cookies.map(\.name) == ["ok"])     // Domain=com and an empty name are refused again
        } else {
            #expect(jar.cookies.isEmpty)
            #expect(handler.entries.contains { $0.level == .warning && "\($0.message)".contains("Cookie file") })
        }
        jar.receive(["c=3; Max-Age=100"], from: "https://example.com/")
        jar.flush()
        #expect(CookieJar(persistingTo: file).cookies.contains { $0.name == "c" })
    }

    @Test("a file that cannot be written is logged; requests and the in-memory jar go on")
    func unwritable() throws {
        let file = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/cookies.json")
        let (logger, handler) = recordingCookieLogger()
        let jar = CookieJar(persistingTo: file, logger: logger)
        jar.receive(["a=1; Max-Age=100"], from: "https://example.com/")
        #expect(jar.header(for: "https://example.com/") == "a=1")
        jar.flush()
        #expect(handler.entries.contains { $0.level == .warning && "\($0.message)".contains("could not be written") })
    }

    @Test("a change returns without waiting for the file, and changes made during a write are saved together by the next one")
    func writesOffTheCallersThread() async throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        // A disk that takes its time: each write waits until the test lets it go (20 s at most).
        let gate = DispatchSemaphore(value: 0)
        let writes = Locked(0)
        let slowFile = CookieFile(url: file, limits: CookieJar.Limits()) { url, data in
            _ = gate.wait(timeout: .now() + 20)
            writes.withLock { $0 += 1 }
            try CookieFile.replace(url, with: data)
        }
        let jar = CookieJar(file: slowFile, persistsSessionCookies: false, limits: CookieJar.Limits(), publicSuffixes: .common,
                            clock: .system, logger: APIConfiguration.silentLogger)
        let returned = Locked(0)
        let changes = Task.detached {
            for index in 0..<50 {
                jar.receive(["c\(index)=1; Max-Age=3600"], from: "https://example.com/")
                returned.withLock { $0 += 1 }
            }
        }
        // Every change returns while the first write is still held at the gate.
        let deadline = ContinuousClock.now.advanced(by: .seconds(120))   // a hang guard (loaded machines stall tests for 20 s)
        while returned.withLock({ $0 }) < 50, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(returned.withLock { $0 } == 50, "a change waited for the file")
        for _ in 0..<60 { gate.signal() }   // every write from now on passes
        await changes.value
        jar.flush()
        #expect(writes.withLock { $0 } <= 2, "\(writes.withLock { $0 }) writes for one burst")
        #expect(CookieJar(persistingTo: file).cookies.count == 50)
    }

    @Test("flush returns after the write under way and its own, while changes keep arriving")
    func flushIsBounded() async throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let slowFile = CookieFile(url: file, limits: CookieJar.Limits()) { url, data in
            Thread.sleep(forTimeInterval: 0.02)   // a disk that takes 20 ms a write
            try CookieFile.replace(url, with: data)
        }
        let jar = CookieJar(file: slowFile, persistsSessionCookies: false, limits: CookieJar.Limits(), publicSuffixes: .common,
                            clock: .system, logger: APIConfiguration.silentLogger)
        // A server that refreshes a cookie with every response, for as long as the flush takes
        // (60 s at most, if it never returned).
        let flushed = Locked(false)
        let traffic = Task.detached {
            let end = ContinuousClock.now.advanced(by: .seconds(60))
            var index = 0
            while !flushed.withLock({ $0 }), ContinuousClock.now < end {
                jar.receive(["session=\(index); Max-Age=3600"], from: "https://example.com/")
                index += 1
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        jar.flush()
        let took = start.duration(to: .now)
        flushed.withLock { $0 = true }
        await traffic.value
        // Two 20 ms writes; 40 s is room for a loaded machine, below the 60 s of traffic.
        #expect(took < .seconds(40), "flush waited \(took) for the traffic to stop")
        jar.flush()
        #expect(CookieJar(persistingTo: file).cookies.map(\.value) == jar.cookies.map(\.value))
    }

    @Test("flush called from within a write (a log handler, a clock) returns instead of waiting for itself")
    func flushFromTheWriter() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let box = Locked<CookieJar?>(nil)
        let calls = Locked(0)
        let reentrant = CookieFile(url: file, limits: CookieJar.Limits()) { url, data in
            try CookieFile.replace(url, with: data)
            // Only the first write flushes again, or each would start another.
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            if call == 1 { box.withLock { $0 }?.flush() }
        }
        let jar = CookieJar(file: reentrant, persistsSessionCookies: false, limits: CookieJar.Limits(), publicSuffixes: .common,
                            clock: .system, logger: APIConfiguration.silentLogger)
        box.withLock { $0 = jar }
        jar.receive(["p=1; Max-Age=3600"], from: "https://example.com/")
        jar.flush()
        #expect(CookieJar(persistingTo: file).header(for: "https://example.com/") == "p=1")
        box.withLock { $0 = nil }
    }

    @Test("a write that failed is tried again by flush")
    func flushRetriesAFailedWrite() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let failures = Locked(1)
        let flaky = CookieFile(url: file, limits: CookieJar.Limits()) { url, data in
            let fails = failures.withLock { left -> Bool in
                left -= 1
                return left >= 0
            }
            if fails { throw CocoaError(.fileWriteOutOfSpace) }
            try CookieFile.replace(url, with: data)
        }
        let (logger, handler) = recordingCookieLogger()
        let jar = CookieJar(file: flaky, persistsSessionCookies: false, limits: CookieJar.Limits(), publicSuffixes: .common,
                            clock: .system, logger: logger)
        jar.receive(["p=1; Max-Age=3600"], from: "https://example.com/")
        jar.flush()
        #expect(handler.entries.contains { $0.level == .warning && "\($0.message)".contains("could not be written") })
        #expect(CookieJar(persistingTo: file).header(for: "https://example.com/") == "p=1")
    }

    @Test("a write failure that repeats is one warning, then debug lines; the write that succeeds again says so")
    func repeatedWriteFailureWarnsOnce() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let diskFull = Locked(true)
        let disk = CookieFile(url: file, limits: CookieJar.Limits()) { url, data in
            if diskFull.withLock({ $0 }) { throw CocoaError(.fileWriteOutOfSpace) }
            try CookieFile.replace(url, with: data)
        }
        var (logger, handler) = recordingCookieLogger()
        logger.logLevel = .trace                       // the debug lines are what is checked
        let jar = CookieJar(file: disk, persistsSessionCookies: false, limits: CookieJar.Limits(), publicSuffixes: .common,
                            clock: .system, logger: logger)
        for index in 0..<5 {
            jar.receive(["p\(index)=1; Max-Age=3600"], from: "https://example.com/")
            jar.flush()
        }
        let failures = handler.entries.filter { "\($0.message)".contains("could not be written") }
        #expect(failures.count >= 5)
        #expect(failures.filter { $0.level == .warning }.count == 1)
        #expect(failures.dropFirst().allSatisfy { $0.level == .debug })

        diskFull.withLock { $0 = false }
        jar.receive(["q=1; Max-Age=3600"], from: "https://example.com/")
        jar.flush()
        #expect(handler.entries.contains { $0.level == .info && "\($0.message)".contains("written again") })
        #expect(CookieJar(persistingTo: file).header(for: "https://example.com/")?.contains("q=1") == true)

        // Failing again after a success warns again: it is news.
        diskFull.withLock { $0 = true }
        jar.receive(["r=1; Max-Age=3600"], from: "https://example.com/")
        jar.flush()
        #expect(handler.entries.filter { $0.level == .warning && "\($0.message)".contains("could not be written") }.count == 2)
    }

    @Test("a jar released right after a change still writes it")
    func releasedJarWrites() async throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let written = Locked(false)
        do {
            let observed = CookieFile(url: file, limits: CookieJar.Limits()) { url, data in
                try CookieFile.replace(url, with: data)
                written.withLock { $0 = true }
            }
            let jar = CookieJar(file: observed, persistsSessionCookies: false, limits: CookieJar.Limits(), publicSuffixes: .common,
                                clock: .system, logger: APIConfiguration.silentLogger)
            jar.receive(["p=1; Max-Age=3600"], from: "https://example.com/")
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while !written.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(CookieJar(persistingTo: file).header(for: "https://example.com/") == "p=1")
    }

    @Test("the file never holds more than the limits allow: a file larger than any jar could write is refused unread")
    func oversizedFile() throws {
        let file = try temporaryCookieFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let limits = CookieJar.Limits(maxCookieBytes: 10, maxCookies: 2)
        try Data(repeating: 0x20, count: 1_000_000).write(to: file)
        let (logger, handler) = recordingCookieLogger()
        #expect(CookieJar(persistingTo: file, limits: limits, logger: logger).cookies.isEmpty)
        #expect(handler.entries.contains { "\($0.message)".contains("larger than") })
    }
}
