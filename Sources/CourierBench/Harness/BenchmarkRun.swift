import Foundation

/// The whole benchmark: start the server process, build every scenario, run the interleaved
/// rounds and the memory probes, print the table (and the JSON line).
enum BenchmarkRun {
    /// The pairs whose ratios are reported, with the issues' targets: first the
    /// same-configuration pairs (the raw client is given Courier's configuration, so the ratio is
    /// Courier's own work), then default against default (each side as it comes).
    static let pairs: [Pair] = [
        Pair(key: "ahc", subject: "ahc.courier", baseline: "ahc.raw", cpuTarget: 1.10, rpsTarget: 0.95),
        Pair(key: "ahc.service", subject: "ahc.service", baseline: "ahc.raw", cpuTarget: 1.10, rpsTarget: 0.95),
        Pair(key: "urlsession", subject: "urlsession.courier", baseline: "urlsession.raw", cpuTarget: 1.05, rpsTarget: nil),
        Pair(key: "middleware", subject: "middleware.stack", baseline: "ahc.courier", cpuTarget: 1.10, rpsTarget: nil),
        Pair(key: "ahc.default", subject: "ahc.default.courier", baseline: "ahc.default.raw", cpuTarget: 0.85, rpsTarget: 1.00,
             isDefaultVersusDefault: true),
        Pair(key: "urlsession.default", subject: "urlsession.courier", baseline: "urlsession.default.raw", cpuTarget: 1.05, rpsTarget: nil,
             isDefaultVersusDefault: true),
        // An experiment, run only with `--only urlsession.completion`: the alternative to the
        // session delegate the URLSession issue asks to measure (see CompletionHandlerTransport).
        Pair(key: "urlsession.completion", subject: "urlsession.completion", baseline: "urlsession.raw", cpuTarget: 1.05, rpsTarget: nil),
        // An experiment, run only with `--only urlsession.nocookies`: Courier (cookies kept)
        // against raw URLSession whose session keeps none (see URLSessionScenarios).
        Pair(key: "urlsession.nocookies", subject: "urlsession.courier", baseline: "urlsession.raw.nocookies", cpuTarget: 1.05, rpsTarget: nil),
        // An experiment, run only with `--only urlsession.post`: a small JSON request body.
        Pair(key: "urlsession.post", subject: "urlsession.post.courier", baseline: "urlsession.post.raw", cpuTarget: 1.05, rpsTarget: nil),
        // An experiment, run only with `--only ahc.post`: the same over AsyncHTTPClient.
        Pair(key: "ahc.post", subject: "ahc.post.courier", baseline: "ahc.post.raw", cpuTarget: 1.10, rpsTarget: nil),
        Pair(key: "cache.hit", subject: "cache.hit", baseline: "cache.network", cpuTarget: 0.10, rpsTarget: nil, isCache: true),
        Pair(key: "cache.hit.bytes", subject: "cache.hit.bytes", baseline: "cache.network.bytes", cpuTarget: 0.10, rpsTarget: nil, isCache: true),
        Pair(key: "cache.hit.disk.bytes", subject: "cache.hit.disk.bytes", baseline: "cache.network.bytes", cpuTarget: 1.00, rpsTarget: nil, isCache: true),
        Pair(key: "cache.revalidation", subject: "cache.revalidated", baseline: "cache.full", cpuTarget: 1.00, rpsTarget: nil, isCache: true),
    ]

    /// The pairs and scenarios that are experiments, run only when named.
    static let experimentNames: Set<String> = [
        "urlsession.completion", "urlsession.nocookies", "urlsession.raw.nocookies",
        "urlsession.post", "urlsession.post.raw", "urlsession.post.courier",
        "ahc.post", "ahc.post.raw", "ahc.post.courier",
    ]

    /// Runs the benchmark as `options` say.
    static func run(_ options: Options) async throws {
        let log: (String) -> Void = { line in
            FileHandle.standardError.write(Data("[courier-bench] \(line)\n".utf8))
        }
        let server = try options.serverPort.map(ServerProcess.external) ?? ServerProcess.start()
        defer { server.stop() }
        let rounds = options.processes.map { "\($0) rounds in their own processes" } ?? "\(options.rounds) rounds"
        log("server on port \(server.port); \(rounds), \(options.sequentialRequests) sequential, \(options.concurrentRequests) at \(options.inFlight) in flight")

        let ahc = AHCScenarios(baseURL: server.baseURL)
        let urlSession = URLSessionScenarios(baseURL: server.baseURL, maxConnectionsPerHost: options.maxConnectionsPerHost)
        let defaults = DefaultScenarios(baseURL: server.baseURL)
        var scenarios = ahc.scenarios(baseURL: server.baseURL, sameHeaders: options.sameHeaders)
        scenarios += ServiceScenarios.scenarios(ahc: ahc)
        scenarios += MiddlewareScenarios.scenarios(baseURL: server.baseURL, ahc: ahc)
        scenarios += urlSession.scenarios(baseURL: server.baseURL, sameHeaders: options.sameHeaders)
        scenarios += defaults.scenarios(baseURL: server.baseURL)
        scenarios += try await CacheScenarios.scenarios(baseURL: server.baseURL, ahc: ahc)
        // Experiments run only when named: they are not Courier's behaviour.
        if let families = options.families, !families.isDisjoint(with: Self.experimentNames) {
            scenarios += urlSession.experimentScenarios(baseURL: server.baseURL, sameHeaders: options.sameHeaders)
            scenarios += ahc.experimentScenarios(baseURL: server.baseURL)
        }
        let wanted = options.exactSelection
            ? scenarios.filter { options.families?.contains($0.key) ?? true }
            : selected(scenarios, families: options.families)

        let results: Rounds.Results
        if let processes = options.processes {
            results = try ProcessRounds.run(processes, options: options, port: server.port, log: log)
        } else {
            results = try await Rounds(scenarios: wanted, options: options, connections: { server.acceptedConnections() })
                .run(progress: log)
        }
        try await ahc.shutdown()
        urlSession.shutdown()
        CacheScenarios.removeDiskDirectory()
        if options.emitsMeasurements {
            print(String(decoding: try JSONEncoder().encode(results), as: UTF8.self))
            return
        }

        var memory: [MemoryProbe.Result] = []
        if !options.quick && !options.skipMemory {
            let keys = Set(wanted.map(\.key))
            memory = try MemoryProbe.runAll(port: server.port, clients: MemoryProbe.clients.filter(keys.contains), log: log)
        }
        var cacheMemory: [CacheMemoryProbe.Result] = []
        if !options.quick && !options.skipMemory && wanted.contains(where: { $0.family == "cache" }) {
            cacheMemory = try CacheMemoryProbe.runAll(port: server.port, log: log)
        }
        let report = Report(options: options, scenarios: wanted, results: results, pairs: pairs, memory: memory, cacheMemory: cacheMemory)
        print(report.table())
        if options.json { print(try report.jsonLine()) }
    }

    /// The scenarios `--only` asks for (all without it): those whose family or key is named,
    /// both sides of a pair whose key is named, the baseline of every pair whose subject runs
    /// (a ratio needs both sides), and the subject of a default-against-default pair whose
    /// baseline runs.
    static func selected(_ scenarios: [Scenario], families: Set<String>?) -> [Scenario] {
        guard let families else { return scenarios }
        var keys = Set(scenarios.filter { families.contains($0.family) || families.contains($0.key) }.map(\.key))
        for pair in pairs where families.contains(pair.key) {
            keys.formUnion([pair.subject, pair.baseline])
        }
        for pair in pairs where keys.contains(pair.subject) {
            keys.insert(pair.baseline)
        }
        // Default against default: a raw default client asked for brings Courier's default.
        for pair in pairs where pair.isDefaultVersusDefault && keys.contains(pair.baseline) {
            keys.insert(pair.subject)
        }
        return scenarios.filter { keys.contains($0.key) }
    }
}
