import Foundation

// courier-bench: see `Options.help`, or the Performance section of the README.
//
// The main thread blocks on a semaphore while the work runs on Swift's cooperative pool, rather
// than using an `async` top level: that parks the main thread in `dispatch_main()`, which
// valgrind 3.19 (this machine's) cannot run — and `--micro` exists to be run under callgrind.

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
    exit(2)
}

let status = MainThread.runBlocking {
    switch options.mode {
    case .help:
        print(Options.help)
    case .serve:
        try await BenchServer.run()
    case .micro(let count, let path):
        try await MicroBenchmark.run(count: count, path: path)
    case .probe(let client, let workload, let port):
        try await MemoryProbe.run(client: client, workload: workload, port: port)
    case .cacheProbe(let cached, let port):
        try await CacheMemoryProbe.run(cached: cached, port: port)
    case .transfers:
        try await TransferProbe.runAll(options)
    case .transferProbe(let transfer, let transport, let port, let bytes):
        try await TransferProbe.run(transfer: transfer, transport: transport, port: port, bytes: bytes)
    case .compare(let before, let after):
        try Comparison.run(before: before, after: after)
    case .benchmark:
        try await BenchmarkRun.run(options)
    }
}
exit(status)
