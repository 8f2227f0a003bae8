import Courier
@testable import CourierURLSession
import Foundation
import Testing

/// The one timer behind all of a `URLSessionTransport`'s request deadlines.
@Suite("Request deadlines behind one timer")
struct DeadlineWatchTests {
    /// Records when each entry expired.
    private final class Expiries: Sendable {
        private let fired = Locked<[Int: ContinuousClock.Instant]>([:])
        func record(_ id: Int) { fired.withLock { $0[id] = .now } }
        var ids: Set<Int> { Set(fired.withLock { $0.keys }) }
        func time(of id: Int) -> ContinuousClock.Instant? { fired.withLock { $0[id] } }
    }

    private func waitUntil(_ limit: Duration = .seconds(60), _ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + limit
        while !condition(), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("a deadline expires once it has passed, not before")
    func expiresAtTheDeadline() async throws {
        let watch = DeadlineWatch()
        let expiries = Expiries()
        let start = ContinuousClock.now
        _ = watch.add(deadline: start + .milliseconds(150)) { expiries.record(0) }
        try await waitUntil { expiries.ids == [0] }
        let fired = try #require(expiries.time(of: 0))
        #expect(fired >= start + .milliseconds(150))
        #expect(watch.count == 0)
    }

    @Test("a removed deadline never expires")
    func removedNeverExpires() async throws {
        let watch = DeadlineWatch()
        let expiries = Expiries()
        let token = watch.add(deadline: .now + .milliseconds(50)) { expiries.record(0) }
        _ = watch.add(deadline: .now + .milliseconds(100)) { expiries.record(1) }
        watch.remove(token)
        try await waitUntil { expiries.ids == [1] }
        try await Task.sleep(for: .milliseconds(100))
        #expect(expiries.ids == [1])
    }

    @Test("an earlier deadline added after a later one expires first")
    func earlierDeadlineResetsTheTimer() async throws {
        let watch = DeadlineWatch()
        let expiries = Expiries()
        _ = watch.add(deadline: .now + .seconds(60)) { expiries.record(0) }
        _ = watch.add(deadline: .now + .milliseconds(50)) { expiries.record(1) }
        try await waitUntil { expiries.ids == [1] }
        #expect(expiries.ids == [1])
        #expect(watch.count == 1)
    }

    @Test("a deadline already past expires at once; one at the end of time is accepted")
    func pastAndFarDeadlines() async throws {
        let watch = DeadlineWatch()
        let expiries = Expiries()
        _ = watch.add(deadline: .now + .seconds(Int64.max)) { expiries.record(0) }
        _ = watch.add(deadline: .now - .seconds(1)) { expiries.record(1) }
        try await waitUntil { expiries.ids == [1] }
        #expect(expiries.ids == [1])
    }

    @Test("of 1,000 deadlines, exactly those not removed expire")
    func manyDeadlines() async throws {
        let watch = DeadlineWatch()
        let expiries = Expiries()
        var kept: Set<Int> = []
        for id in 0..<1000 {
            // At least 2 s away, so each removal below comes before its deadline (also when a
            // loaded machine stalls this loop for a second).
            let token = watch.add(deadline: .now + .milliseconds(Int64.random(in: 2000...3000))) { expiries.record(id) }
            if id.isMultiple(of: 2) { watch.remove(token) } else { kept.insert(id) }
        }
        try await waitUntil { expiries.ids.count >= kept.count }
        try await Task.sleep(for: .milliseconds(50))
        #expect(expiries.ids == kept)
        #expect(watch.count == 0)
    }
}
