import Courier
import Foundation

/// `courier-bench --micro N [--path courier|middleware|decode]`: N requests through Courier
/// over a ``FixedTransport`` (request building, pipeline, body collection, JSON decoding), with
/// no middleware or with the default stack, or N bare `JSONDecoder` decodes of the same bytes,
/// the floor to subtract.
///
/// Made to run under callgrind, whose instruction counts are reproducible from run to run:
///
/// ```
/// valgrind --tool=callgrind --callgrind-out-file=/dev/null courier-bench --micro 1000
/// valgrind --tool=callgrind --callgrind-out-file=/dev/null courier-bench --micro 11000
/// ```
///
/// (instructions of the second − the first) / 10,000 is the cost of one request, start-up
/// excluded; do the same with `--path decode` for the decoding floor.
enum MicroBenchmark {
    /// Runs `count` requests through `path` and prints what it did (never a time).
    static func run(count: Int, path: Options.MicroPath) async throws {
        switch path {
        case .courier, .middleware:
            let configuration = APIConfiguration(baseURL: URL(string: "http://bench.invalid/api")!)
            let client = APIClient(configuration: configuration, transport: FixedTransport(),
                                   middleware: path == .middleware ? MiddlewareScenarios.defaultStack().middleware : [])
            for _ in 0..<count {
                try await client.send(ListUsers()).check()
            }
        case .decode:
            let decoder = JSONDecoder()
            let bytes = Fixtures.usersJSON
            for _ in 0..<count {
                try decoder.decode([BenchUser].self, from: bytes).check()
            }
        }
        print("micro: \(count) requests through \(path.rawValue)")
    }
}
