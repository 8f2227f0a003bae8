import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A transport whose answers are built by a closure, with bodies made of explicit chunks, so
/// that chunk boundaries, mid-body failures and endless bodies can be tested.
struct ScriptedTransport: Transport {
    typealias Script = @Sendable (HTTPRequest, Int) async throws -> (HTTPResponse, HTTPBody?)
    let calls = Calls()
    let script: Script

    final class Calls: Sendable {
        let requests = LockedBox<[HTTPRequest]>([])
    }

    init(_ script: @escaping Script) { self.script = script }

    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        if let body { for try await _ in body {} }
        let index = calls.requests.withLock { $0.append(request); return $0.count }
        return try await script(request, index)
    }

    var requests: [HTTPRequest] { calls.requests.withLock { $0 } }
}

/// A tiny lock for test state.
final class LockedBox<Value>: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}

/// A body made of `chunks`, then optionally an error, then optionally never ending.
func chunkedBody(_ chunks: [String], length: HTTPBody.Length = .unknown, thenFail error: (any Error)? = nil, thenHang: Bool = false) -> HTTPBody {
    let stream = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
        let task = Task {
            for chunk in chunks { continuation.yield(ArraySlice(chunk.utf8)) }
            if let error { continuation.finish(throwing: error); return }
            if thenHang {
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
                continuation.finish(throwing: CancellationError())
                return
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
    }
    return HTTPBody(stream, length: length, iterationBehavior: .single)
}

func ok(_ headers: HTTPFields = [:]) -> HTTPResponse {
    HTTPResponse(status: .ok, headerFields: headers)
}

func scriptedClient(_ script: @escaping ScriptedTransport.Script, configure: (inout APIConfiguration) -> Void = { _ in }) -> (APIClient, ScriptedTransport) {
    let transport = ScriptedTransport(script)
    var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com")!)
    configure(&configuration)
    return (APIClient(configuration: configuration, transport: transport), transport)
}

/// A fresh directory under the temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func directoryContents(_ url: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
}
