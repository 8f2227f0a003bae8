import Foundation

/// What `courier-bench` was asked to do, parsed from the command line.
///
/// The benchmark's modes: the full comparison (the default), a short `--quick` version for CI
/// smoke, the loopback server it spawns (`--serve`), the stubbed-transport micro-benchmark
/// (`--micro N`) meant to run under `valgrind --tool=callgrind`, the large-transfer memory
/// probes (`--transfers`), and the comparison of two `--json` outputs (`--compare`).
struct Options: Sendable {
    /// The mode the process runs in.
    enum Mode: Sendable, Equatable {
        /// Measure every pair and print the table (and JSON with `--json`).
        case benchmark
        /// Run the loopback HTTP server and print its port on stdout.
        case serve
        /// Run `count` stubbed requests through the given micro path (for callgrind).
        case micro(count: Int, path: MicroPath)
        /// Run one memory probe against a running server (spawned by the benchmark itself).
        case probe(client: String, workload: String, port: Int)
        /// Run the memory store's probe, with or without the cache (spawned by the benchmark).
        case cacheProbe(cached: Bool, port: Int)
        /// Measure the large transfers' memory, each case in a child process.
        case transfers
        /// Run one transfer case against a running server (spawned by `--transfers`).
        case transferProbe(transfer: String, transport: String, port: Int, bytes: Int)
        /// Print the ratio changes between two `--json` outputs.
        case compare(before: String, after: String)
        /// Print the help text.
        case help
    }

    /// Which path the micro-benchmark drives.
    ///
    /// Each path does one more stage than the one before, so the differences between them are
    /// the stages (Scripts/callgrind-stages.sh): `stub` ⊂ `build` ⊂ `open` ⊂ `data` ⊂ `courier`.
    enum MicroPath: String, Sendable, CaseIterable {
        /// Courier's `send` of a typed request over a stub transport, JSON decoding included.
        case courier
        /// `courier` with the default middleware stack (logging at info, retry, auth).
        case middleware
        /// The same JSON decoded by a bare `JSONDecoder`, the floor Courier is compared with.
        case decode
        /// The stub transport's own `send`, called directly (no Courier), to subtract.
        case stub
        /// `prepare`: the request built into an `HTTPRequest` head (and body), nothing sent.
        case build
        /// `stream(for:)` with the body left unread: build, request context, the middleware
        /// chain, the redirect follower, the (stub) transport call and the status check.
        case open
        /// `data(for:)`: `open` and the body collected into `Data` under the size limit.
        case data
        /// `data(for:)` through a ``CachingMiddleware`` (``MemoryCacheStore``) that answers each
        /// request from the store (a fresh hit; the stub answers once, `max-age` a year). Minus
        /// `data`, the cost of a hit that replaces the transport call; not one of the stages.
        case cacheHit = "cache-hit"
        /// `data(for:)` through a ``CachingMiddleware`` that revalidates each request (`no-cache`,
        /// an `ETag`): the stub answers `304` and the stored body is returned. Minus `data`, the
        /// cache's own cost in a revalidation.
        case cacheRevalidation = "cache-revalidation"
    }

    /// What the process does (the full benchmark unless a flag says otherwise).
    var mode: Mode = .benchmark
    /// Short run for CI smoke: few requests and rounds, no memory probes.
    var quick = false
    /// Print one JSON object as the last line of output.
    var json = false
    /// Rounds per scenario (each figure is a median over rounds).
    var rounds = 5
    /// Rounds in child processes: each round runs in a fresh `courier-bench` process (`nil`:
    /// every round in this process). A client's cost at 64 in flight depends on how
    /// AsyncHTTPClient spread its connections over the event loops, which is drawn once per
    /// client and kept for the life of the process; fresh processes draw again.
    var processes: Int?
    /// A child of `--processes`: print the round's raw measurements as one JSON line, no report.
    var emitsMeasurements = false
    /// The index of this process's first round (a child of `--processes` gets its round), so
    /// the scenarios' order rotates across processes as it does across rounds in one.
    var firstRound = 0
    /// Requests per sequential run.
    var sequentialRequests = 2_000
    /// Requests per concurrent run.
    var concurrentRequests = 10_000
    /// Requests in flight in a concurrent run.
    var inFlight = 64
    /// The port of a server already running (`courier-bench --serve`), instead of spawning one;
    /// for profilers under which the benchmark cannot spawn processes (valgrind).
    var serverPort: Int?
    /// Raw clients send the headers Courier sends by default, so both put the same request on
    /// the wire.
    var sameHeaders = false
    /// Skip the memory probes (child processes).
    var skipMemory = false
    /// Only scenarios whose family or key is in this set run (`nil`: all).
    var families: Set<String>?
    /// `--only` runs exactly the scenarios named, without their pairs' baselines (for counting
    /// one scenario's instructions under callgrind).
    var exactSelection = false
    /// `httpMaximumConnectionsPerHost` for the same-configuration URLSession pair (`nil`: the
    /// transport's default configuration).
    var maxConnectionsPerHost: Int?
    /// Runs per transfer case (`--transfers`).
    var transferRuns = 3
    /// The size of each large transfer, in bytes (`--transfers`).
    var transferBytes = 256 << 20

    /// The help text printed by `--help`.
    static let help = """
    courier-bench — Courier's own cost per request, next to the raw transports it wraps.

    USAGE
      swift run -c release courier-bench [--json] [--rounds N] [--only ahc,urlsession,middleware]
      swift run courier-bench --quick          short smoke run (CI, debug builds)
      swift run -c release courier-bench --transfers [--runs N] [--transfer-mib N]
                                               memory of 256 MiB uploads, downloads, a stalled reader
                                               and a deflate bomb
      courier-bench --compare before.json after.json
                                               ratio changes between two --json outputs, one line per pair
      courier-bench --micro N [--path courier|middleware|decode|stub|build|open|data|cache-hit|cache-revalidation]
                                               N stubbed requests, for valgrind --tool=callgrind
                                               (Scripts/callgrind-stages.sh gives per-stage counts)
      courier-bench --serve                    the loopback server alone (prints its port)

    The benchmark spawns itself with --serve as the HTTP/1.1 server on 127.0.0.1, so the
    server's CPU time is not counted as the client's, then runs, interleaved: raw
    AsyncHTTPClient; Courier over AsyncHTTPClientTransport, with a typed APIRequest and through
    a @Service macro client; Courier with logging, retry and auth middleware;
    raw URLSession; Courier over URLSessionTransport — the raw clients configured as Courier
    configures its own — and, default against default, HTTPClient.shared and URLSession.shared
    against Courier's default transports; each sequentially and with many requests in flight.
    The cache family: a CachingMiddleware fresh hit against the network request it saves, and a
    304 revalidation of 64 KiB against the full 200; and the memory store's peak RSS with
    10,000 distinct URLs (child processes, with and without the cache).
    Figures are medians over rounds with min–max; ratios are Courier divided by raw, computed
    round by round in the same run; the server counts the connections each run opened.

    OPTIONS
      --json              print one JSON object (figures and `ratios`) as the last line
      --quick             a short run: 3 rounds, 100 sequential, 640 concurrent requests
      --rounds N          rounds per scenario (default 5)
      --processes N       N rounds, each in a fresh child process (instead of --rounds in this
                          one): every client draws its connections' event loops anew, which at 64
                          in flight moves CPU per request by 20 % or more for the life of a
                          process; no connection counts in this mode
      --sequential N      requests per sequential run (default 2000)
      --concurrent N      requests per concurrent run (default 10000)
      --in-flight N       requests in flight in a concurrent run (default 64)
      --no-memory         skip the memory probes
      --same-headers      raw clients also send Courier's default headers (Accept, User-Agent)
                          and, raw URLSession, the ones URLSessionTransport adds (an empty
                          Accept-Language; on Linux Accept-Encoding), so both sides put the
                          same request on the wire
      --port N            use a server already running on 127.0.0.1:N (start one with --serve)
                          instead of spawning it; for profiling under valgrind or perf
      --only LIST         only these families (ahc, urlsession, middleware, defaults, cache), pairs
                          (ahc.default, urlsession.default…) or scenario keys (ahc.raw,
                          ahc.courier, ahc.service, middleware.stack, urlsession.raw,
                          urlsession.courier, ahc.default.raw, ahc.default.courier,
                          urlsession.default.raw, cache.hit, cache.network, cache.revalidated,
                          cache.full); a pair's baseline comes along. Named only, four
                          experiments: urlsession.completion (Courier over data(for:)
                          without a session delegate, which gives up the size limit while the
                          body arrives), against urlsession.raw; urlsession.nocookies
                          (Courier, cookies kept, against urlsession.raw.nocookies: raw
                          URLSession whose session accepts no cookies); urlsession.post
                          and ahc.post (a POST of one user as JSON, the raw client against
                          Courier)
      --exactly LIST      like --only, without the baselines (profiling one scenario)
      --max-connections-per-host N
                          httpMaximumConnectionsPerHost for urlsession.raw and urlsession.courier
                          (default: URLSessionTransport.defaultConfiguration()'s)
      --micro N           run N requests through a stub transport and exit
      --path P            with --micro: `courier` (send + decode), `middleware` (the same with
                          logging, retry and auth), `decode` (JSONDecoder only), `stub` (the
                          stub transport alone), `build` (prepare), `open` (stream(for:), body
                          unread), `data` (data(for:), body collected) or `cache-hit` (`data`
                          answered by a CachingMiddleware's memory store: a fresh hit) or
                          `cache-revalidation` (`data` through the cache, a 304 each time)
      --transfers         upload a file and a .stream body, download to a file, hold a stalled
                          bytes(for:) reader (256 MiB each), send a deflate bomb of that size
                          against a 1 MiB limit, over both transports, each case in a child
                          process; prints the peak resident memory growth per case
      --runs N            with --transfers: runs per case (default 3)
      --transfer-mib N    with --transfers: the size of each transfer in MiB (default 256)
      --compare A B       print the ratio changes from A to B (files of --json output)
      --serve             run the loopback server; prints its port, stops when stdin closes
      -h, --help          this text
    """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var microCount: Int?
        var microPath = MicroPath.courier
        var probe: (client: String, workload: String, port: Int)?
        var transferProbe: (transfer: String, transport: String, port: Int, bytes: Int)?
        var cacheProbe: (cached: Bool, port: Int)?
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let value = iterator.next() else { throw OptionsError("\(flag) needs a value") }
            return value
        }
        func number(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else { throw OptionsError("\(flag) needs a positive number, not \(text)") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "-h", "--help": options.mode = .help
            case "--serve": options.mode = .serve
            case "--json": options.json = true
            case "--no-memory": options.skipMemory = true
            case "--same-headers": options.sameHeaders = true
            case "--port": options.serverPort = try number(argument)
            case "--quick":
                options.quick = true
                options.rounds = 3
                options.sequentialRequests = 100
                options.concurrentRequests = 640
            case "--rounds": options.rounds = try number(argument)
            case "--processes": options.processes = try number(argument)
            case "--emit-measurements": options.emitsMeasurements = true
            case "--first-round": options.firstRound = try number(argument)
            case "--sequential": options.sequentialRequests = try number(argument)
            case "--concurrent": options.concurrentRequests = try number(argument)
            case "--in-flight": options.inFlight = try number(argument)
            case "--only": options.families = Set(try value(argument).split(separator: ",").map(String.init))
            case "--exactly":
                options.families = Set(try value(argument).split(separator: ",").map(String.init))
                options.exactSelection = true
            case "--max-connections-per-host": options.maxConnectionsPerHost = try number(argument)
            case "--micro": microCount = try number(argument)
            case "--path":
                let text = try value(argument)
                guard let path = MicroPath(rawValue: text) else {
                    throw OptionsError("--path is one of \(MicroPath.allCases.map(\.rawValue).joined(separator: ", ")), not \(text)")
                }
                microPath = path
            case "--probe":
                let client = try value(argument)
                let workload = try value(argument)
                probe = (client, workload, try number(argument))
            case "--cache-probe":
                let side = try value(argument)
                guard side == "with" || side == "without" else { throw OptionsError("--cache-probe is followed by with or without, not \(side)") }
                cacheProbe = (side == "with", try number(argument))
            case "--transfers": options.mode = .transfers
            case "--runs": options.transferRuns = try number(argument)
            case "--transfer-mib": options.transferBytes = try number(argument) << 20
            case "--transfer-probe":
                let transfer = try value(argument)
                let transport = try value(argument)
                transferProbe = (transfer, transport, try number(argument), try number(argument))
            case "--compare":
                options.mode = .compare(before: try value(argument), after: try value(argument))
            default: throw OptionsError("unknown argument \(argument) (see --help)")
            }
        }
        if options.mode == .benchmark, let microCount { options.mode = .micro(count: microCount, path: microPath) }
        if options.mode == .benchmark, let probe { options.mode = .probe(client: probe.client, workload: probe.workload, port: probe.port) }
        if options.mode == .benchmark, let cacheProbe { options.mode = .cacheProbe(cached: cacheProbe.cached, port: cacheProbe.port) }
        if options.mode == .benchmark, let transferProbe {
            options.mode = .transferProbe(transfer: transferProbe.transfer, transport: transferProbe.transport,
                                          port: transferProbe.port, bytes: transferProbe.bytes)
        }
        return options
    }
}

/// A command line that could not be understood.
struct OptionsError: Error, CustomStringConvertible {
    /// What was wrong, for the user.
    let description: String
    /// An error saying `description`.
    init(_ description: String) { self.description = description }
}
