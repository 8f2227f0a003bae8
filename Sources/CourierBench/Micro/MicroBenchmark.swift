import Courier
import Foundation
import HTTPTypes

/// `courier-bench --micro N [--path P]`: N requests through Courier over a ``FixedTransport``
/// (no network, no event loop), stopping after a given stage, or N bare `JSONDecoder` decodes
/// of the same bytes, the floor to subtract.
///
/// Made to run under callgrind, whose instruction counts are reproducible from run to run:
///
/// ```
/// valgrind --tool=callgrind --callgrind-out-file=/dev/null courier-bench --micro 1000 --path open
/// valgrind --tool=callgrind --callgrind-out-file=/dev/null courier-bench --micro 3000 --path open
/// ```
///
/// (instructions of the second − the first) / 2,000 is the cost of one request, start-up
/// excluded. Each path does one more stage than the one before (see ``Options/MicroPath``), so
/// the differences are the stages; `Scripts/callgrind-stages.sh` does the arithmetic.
enum MicroBenchmark {
    /// Runs `count` requests through `path` and prints what it did (never a time).
    static func run(count: Int, path: Options.MicroPath) async throws {
        let configuration = APIConfiguration(baseURL: URL(string: "http://bench.invalid/api")!)
        let client = APIClient(configuration: configuration, transport: FixedTransport(),
                               middleware: path == .middleware ? MiddlewareScenarios.defaultStack().middleware : [])
        switch path {
        case .courier, .middleware:
            for _ in 0..<count {
                try await client.send(ListUsers()).check()
            }
        case .decode:
            let decoder = JSONDecoder()
            let bytes = Fixtures.usersJSON
            for _ in 0..<count {
                try decoder.decode([BenchUser].self, from: bytes).check()
            }
        case .stub:
            let transport = FixedTransport()
            let (head, _) = try client.prepare(ListUsers())
            let context = RequestContext(operationName: "ListUsers", baseURL: configuration.baseURL)
            for _ in 0..<count {
                let (response, body) = try await transport.send(head, body: nil, context: context)
                try check(response, body: body)
            }
        case .build:
            for _ in 0..<count {
                let (head, _) = try client.prepare(ListUsers())
                guard head.method == .get else { throw UnexpectedAnswer(description: "built \(head.method)") }
            }
        case .open:
            for _ in 0..<count {
                let streamed = try await client.stream(for: ListUsers())
                try check(streamed.response, body: streamed.body)
            }
        case .cacheHit:
            try await throughCache(FixedTransport(cacheControl: "max-age=31536000"), count: count, configuration: configuration, expecting: .hit)
        case .cacheRevalidation:
            try await throughCache(FixedTransport(cacheControl: "no-cache", entityTag: "\"v1\""), count: count,
                                   configuration: configuration, expecting: .revalidated)
        case .data:
            for _ in 0..<count {
                let (response, data) = try await client.data(for: ListUsers())
                guard response.status == .ok, data.count == Fixtures.usersJSON.count else {
                    throw UnexpectedAnswer(description: "HTTP \(response.status.code), \(data.count) bytes")
                }
            }
        }
        print("micro: \(count) requests through \(path.rawValue)")
    }

    /// `count` requests through a ``CachingMiddleware`` over `transport`, each answered with
    /// `outcome` after one miss fills the store.
    private static func throughCache(_ transport: FixedTransport, count: Int, configuration: APIConfiguration,
                                     expecting outcome: CacheOutcome) async throws {
        let cached = APIClient(configuration: configuration, transport: transport, middleware: [CachingMiddleware(store: MemoryCacheStore())])
        _ = try await cached.data(for: ListUsers())     // the one miss that fills the store
        for _ in 0..<count {
            let (response, data) = try await cached.data(for: ListUsers())
            guard response.cacheOutcome == outcome, data.count == Fixtures.usersJSON.count else {
                throw UnexpectedAnswer(description: "cache outcome \(response.cacheOutcome?.rawValue ?? "none"), \(data.count) bytes")
            }
        }
    }

    /// Throws unless the stub's answer came back (body left unread, as a caller that only
    /// needs the head would leave it).
    private static func check(_ response: HTTPResponse, body: (some Any)?) throws {
        guard response.status == .ok, body != nil else { throw UnexpectedAnswer(description: "HTTP \(response.status.code)") }
    }
}
