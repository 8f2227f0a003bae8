/// Interleaved rounds: every scenario runs once per mode in each round, in an order that
/// rotates from round to round, so that noise from the shared machine hits every scenario alike.
struct Rounds {
    /// The scenarios, all measured in every round.
    let scenarios: [Scenario]
    /// The run's settings.
    let options: Options
    /// The server's accepted-connection count (`nil` when it cannot be asked).
    var connections: @Sendable () -> Int? = { nil }

    /// Every measurement, by scenario key, then mode, in round order.
    typealias Results = [String: [RunMode: [Measurement]]]

    /// Warms every scenario (connections, lazy initialisation), then runs the rounds.
    /// `progress` gets one line per round.
    func run(progress: (String) -> Void) async throws -> Results {
        for scenario in scenarios {
            _ = try await Runner.measure(scenario, mode: .concurrent, requests: min(options.concurrentRequests, 2 * options.inFlight), inFlight: options.inFlight)
            _ = try await Runner.measure(scenario, mode: .sequential, requests: min(options.sequentialRequests, 50), inFlight: 1)
        }
        var results: Results = [:]
        for round in 0..<options.rounds {
            let clock = ContinuousClock()
            let start = clock.now
            for mode in RunMode.allCases {
                let requests = mode == .sequential ? options.sequentialRequests : options.concurrentRequests
                for offset in 0..<scenarios.count {
                    let scenario = scenarios[(offset + round + options.firstRound) % scenarios.count]
                    let measurement = try await Runner.measure(scenario, mode: mode, requests: requests, inFlight: options.inFlight, connections: connections)
                    results[scenario.key, default: [:]][mode, default: []].append(measurement)
                }
            }
            progress("round \(round + 1)/\(options.rounds) done in \(start.duration(to: clock.now))")
        }
        return results
    }
}
