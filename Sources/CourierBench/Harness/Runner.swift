import Courier

/// Runs a scenario for a number of requests and measures it.
enum Runner {
    /// Sends `requests` requests through `scenario`, one at a time or `inFlight` at a time, and
    /// returns the client's CPU per request and the throughput. `connections` reads the
    /// server's accepted-connection count, before and after the run.
    static func measure(_ scenario: Scenario, mode: RunMode, requests: Int, inFlight: Int,
                        connections: @Sendable () -> Int? = { nil }) async throws -> Measurement {
        let acceptedBefore = connections()
        let clock = ContinuousClock()
        let before = ResourceUsage.now()
        let start = clock.now
        switch mode {
        case .sequential:
            for _ in 0..<requests { try await scenario.perform() }
        case .concurrent:
            try await concurrently(requests: requests, inFlight: inFlight, scenario.perform)
        }
        let elapsed = start.duration(to: clock.now)
        let after = ResourceUsage.now()
        let acceptedAfter = connections()
        let seconds = elapsed.secondsValue
        return Measurement(
            cpuMicros: (after.cpuSeconds - before.cpuSeconds) / Double(requests) * 1e6,
            systemCPUMicros: (after.systemSeconds - before.systemSeconds) / Double(requests) * 1e6,
            contextSwitches: Double(after.contextSwitches - before.contextSwitches) / Double(requests),
            requestsPerSecond: Double(requests) / seconds,
            peakRSS: after.peakRSS,
            currentRSS: ResourceUsage.currentRSS(),
            openFiles: ResourceUsage.openFileDescriptors(),
            connectionsOpened: acceptedAfter.flatMap { after in acceptedBefore.map { after - $0 } })
    }

    /// Runs `operation` `requests` times with `inFlight` workers, each taking its share.
    static func concurrently(requests: Int, inFlight: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws {
        let workers = max(1, min(inFlight, requests))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                let share = requests / workers + (worker < requests % workers ? 1 : 0)
                group.addTask {
                    for _ in 0..<share { try await operation() }
                }
            }
            try await group.waitForAll()
        }
    }
}
