import Foundation

/// The whole benchmark: start the server process, build every scenario, run the interleaved
/// rounds and the memory probes, print the table (and the JSON line).
enum BenchmarkRun {
    /// The pairs whose ratios are reported, with the targets.
    static let pairs: [Pair] = [
        Pair(key: "ahc", subject: "ahc.courier", baseline: "ahc.raw", cpuTarget: 1.10, rpsTarget: 0.95),
        Pair(key: "ahc.service", subject: "ahc.service", baseline: "ahc.raw", cpuTarget: 1.10, rpsTarget: 0.95),
        Pair(key: "urlsession", subject: "urlsession.courier", baseline: "urlsession.raw", cpuTarget: 1.05, rpsTarget: nil),
        Pair(key: "middleware", subject: "middleware.stack", baseline: "ahc.courier", cpuTarget: 1.15, rpsTarget: nil),
    ]

    /// Runs the benchmark as `options` say.
    static func run(_ options: Options) async throws {
        let log: (String) -> Void = { line in
            FileHandle.standardError.write(Data("[courier-bench] \(line)\n".utf8))
        }
        let server = try options.serverPort.map(ServerProcess.external) ?? ServerProcess.start()
        defer { server.stop() }
        log("server on port \(server.port); \(options.rounds) rounds, \(options.sequentialRequests) sequential, \(options.concurrentRequests) at \(options.inFlight) in flight")

        let ahc = AHCScenarios(baseURL: server.baseURL)
        let urlSession = URLSessionScenarios(baseURL: server.baseURL)
        var scenarios = ahc.scenarios(baseURL: server.baseURL, sameHeaders: options.sameHeaders)
        scenarios += ServiceScenarios.scenarios(ahc: ahc)
        scenarios += MiddlewareScenarios.scenarios(baseURL: server.baseURL, ahc: ahc)
        scenarios += urlSession.scenarios(baseURL: server.baseURL, sameHeaders: options.sameHeaders)
        let wanted = scenarios.filter { scenario in
            guard let families = options.families else { return true }
            // A pair needs its baseline: middleware is measured against ahc.courier.
            return families.contains(scenario.family) || families.contains(scenario.key)
                || (families.contains("middleware") && scenario.key == "ahc.courier")
        }

        let results = try await Rounds(scenarios: wanted, options: options).run(progress: log)
        try await ahc.shutdown()
        urlSession.shutdown()

        var memory: [MemoryProbe.Result] = []
        if !options.quick && !options.skipMemory {
            memory = try MemoryProbe.runAll(port: server.port, families: options.families, log: log)
        }
        let report = Report(options: options, scenarios: wanted, results: results, pairs: pairs, memory: memory)
        print(report.table())
        if options.json { print(try report.jsonLine()) }
    }
}
