@testable import CourierAsyncHTTPClient
import Foundation
import Testing

/// The failures of one pinned host's connections, as the requests waiting on that host see them.
@Suite("Pin failures reach their waiters, and leave nothing behind")
struct PinFailuresTests {
    /// A failure to report.
    private var mismatch: CertificatePinningError {
        CertificatePinningError(host: "api.example.test", expected: [], received: nil, reason: "test")
    }

    @Test("a waiter gets a failure reported after it began waiting, and one reported before it asked")
    func delivers() async throws {
        let failures = PinFailures()
        let generation = failures.generation
        let waiter = Task { try await failures.wait(after: generation) }
        try await Task.sleep(for: .milliseconds(20))
        failures.fail(mismatch)
        #expect(try await waiter.value.host == "api.example.test")
        // Asked after the failure, with the generation from before it: at once.
        #expect(try await failures.wait(after: generation).host == "api.example.test")
        #expect(failures.entryCount == 0)
    }

    @Test("a cancelled waiter throws CancellationError, and no entry is left")
    func cancelled() async throws {
        let failures = PinFailures()
        let waiter = Task { try await failures.wait(after: failures.generation) }
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(failures.entryCount == 0)
    }

    @Test("waiters failed and cancelled at the same moment, thousands of times, leave no entry behind")
    func failAndCancelRace() async throws {
        let failures = PinFailures()
        for _ in 0..<3_000 {
            let generation = failures.generation
            let waiters = (0..<4).map { _ in Task { try await failures.wait(after: generation) } }
            await Task.yield()
            failures.fail(mismatch)
            for waiter in waiters { waiter.cancel() }
            for waiter in waiters { _ = try? await waiter.value }
        }
        #expect(failures.entryCount == 0)
    }
}
