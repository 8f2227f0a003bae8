import Courier
import CourierTestServer
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Many requests, a tenth of them cancelled at random: afterwards the process holds no more file
/// descriptors than before. Guarded by `COURIER_SOAK=<requests>` so `swift test` stays quick;
/// `.ci/run` runs a short form, and the README's Reliability table quotes a long one.
@Suite("Soak", .serialized, .enabled(if: SoakSettings.requestCount > 0, "set COURIER_SOAK=<requests> to run"))
struct SoakTests {
    static var requestCount: Int { SoakSettings.requestCount }
    static let concurrency = 32

    /// Open file descriptors of this process (Linux: entries in /proc/self/fd).
    static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Threads of this process (Linux: entries in /proc/self/task) — a proxy for work left
    /// running: Swift tasks have no public count, but a leaked blocked task pins a thread.
    static func threads() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }

    /// Peak resident memory of this process, in MiB.
    static func peakRSSMiB() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1024
    }

    @Test("file descriptors return to their starting count after cancelled and completed requests", arguments: TransportKind.allCases)
    func descriptorsAreReleased(_ kind: TransportKind) async throws {
        try await withTestServer { (server: TestServer) async throws in
            let client = kind.client(for: server) { $0.timeout = .seconds(10) }
            // Warm up: let the transport open its pool.
            try await Self.run(client: client, requests: Self.concurrency * 2, cancelRatio: 0)
            try await Task.sleep(for: .milliseconds(200))
            let before = Self.openFileDescriptors()
            let threadsBefore = Self.threads()

            let clock = ContinuousClock()
            let start = clock.now
            let (completed, cancelled) = try await Self.run(client: client, requests: Self.requestCount, cancelRatio: 0.1)
            let elapsed = start.duration(to: clock.now)

            // Give cancelled connections a moment to close, then compare.
            var after = Self.openFileDescriptors()
            for _ in 0..<50 where after > before {
                try await Task.sleep(for: .milliseconds(100))
                after = Self.openFileDescriptors()
            }
            let threadsAfter = Self.threads()
            print("soak[\(kind.rawValue)]: \(Self.requestCount) requests (\(completed) completed, \(cancelled) cancelled) in \(elapsed); fds before \(before), after \(after); threads before \(threadsBefore), after \(threadsAfter); peak RSS \(String(format: "%.1f", Self.peakRSSMiB())) MiB")
            // Threads are reported, not asserted: Dispatch and FoundationNetworking grow and shrink
            // their worker pools lazily (8 → 16 → 8 was seen across runs), so they are no leak signal.
            #expect(completed + cancelled == Self.requestCount)
            #expect(after <= before + 8, "file descriptors leaked: \(before) → \(after) (a leak grows with the cancellations)")
        }
    }

    /// Sends `requests` requests, `concurrency` at a time, cancelling about `cancelRatio` of them
    /// at a random moment. Returns how many completed and how many were cancelled.
    @discardableResult
    static func run(client: APIClient, requests: Int, cancelRatio: Double) async throws -> (Int, Int) {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            var started = 0
            var completed = 0
            var cancelled = 0
            func launch() {
                let index = started
                started += 1
                let cancel = Double.random(in: 0..<1) < cancelRatio
                group.addTask {
                    let path = index % 5 == 0 ? "/slow" : "/text"
                    let request = Request<Data>(path: path, query: [.init(name: "ms", value: "5")])
                    let task = Task { try await client.send(request) }
                    if cancel {
                        try? await Task.sleep(for: .microseconds(Int.random(in: 0...3_000)))
                        task.cancel()
                    }
                    do {
                        _ = try await task.value
                        return true
                    } catch is CancellationError {
                        return false
                    } catch let error as APIError {
                        if case .cancelled = error { return false }
                        throw error
                    }
                }
            }
            for _ in 0..<min(concurrency, requests) { launch() }
            while let ok = try await group.next() {
                if ok { completed += 1 } else { cancelled += 1 }
                if started < requests { launch() }
            }
            return (completed, cancelled)
        }
    }
}

/// How many requests the soak test sends (`COURIER_SOAK`; 0 skips it).
enum SoakSettings {
    static var requestCount: Int { Int(ProcessInfo.processInfo.environment["COURIER_SOAK"] ?? "") ?? 0 }
}
