import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A transport that answers from stubs instead of the network, and records every request.
///
/// ```swift
/// let stub = StubTransport()
/// stub.on(.get, "/users/{id}", .json(User(id: 1, name: "Ada")))
/// stub.on(.post, "/users", .status(201))
/// stub.on(.get, "/flaky", [.status(503), .json(#"{"ok":true}"#)])   // one after the other
/// let client = APIClient(configuration: .init(baseURL: url), transport: stub)
/// ...
/// #expect(stub.requests.last?.path == "/users/1")
/// ```
///
/// The most recently added matching stub wins, so a test can override a default. A request
/// that matches no stub fails with ``UnmatchedRequest``, naming the request. Patterns match the
/// request's path, or its path relative to the base URL's path.
public final class StubTransport: Transport {
    /// A request no stub matched.
    public struct UnmatchedRequest: Error, Sendable, CustomStringConvertible {
        /// The method and URL.
        public var request: String
        public var description: String { "StubTransport: no stub matches \(request)" }
    }

    /// A fixture file that could not be read.
    public struct FixtureError: Error, Sendable, CustomStringConvertible {
        /// The file's path.
        public var path: String
        /// Why it could not be read.
        public var underlying: String
        public var description: String { "StubTransport: cannot read fixture '\(path)': \(underlying)" }
    }

    /// Builds a response from the request, for stubs that depend on what was sent.
    public typealias Handler = @Sendable (RecordedRequest) async throws -> StubResponse

    private struct Stub: Sendable {
        var method: HTTPRequest.Method?
        var pattern: PathPattern
        var handler: Handler
    }

    private struct State {
        var stubs: [Stub] = []
        var requests: [RecordedRequest] = []
        var cancelled: [RecordedRequest] = []
    }

    private let state = Locked(State())

    /// Creates a transport with no stubs.
    public init() {}

    /// Answers requests matching `method` (any method when `nil`) and `pattern` with `response`.
    public func on(_ method: HTTPRequest.Method?, _ pattern: PathPattern, _ response: StubResponse) {
        on(method, pattern) { _ in response }
    }

    /// Answers matching requests with `responses` one after the other; the last one repeats.
    public func on(_ method: HTTPRequest.Method?, _ pattern: PathPattern, _ responses: [StubResponse]) {
        precondition(!responses.isEmpty, "StubTransport.on needs at least one response")
        let next = Locked(0)
        on(method, pattern) { _ in
            let index = next.withLock { index in defer { index += 1 }; return index }
            return responses[min(index, responses.count - 1)]
        }
    }

    /// Answers matching requests with whatever `handler` returns.
    public func on(_ method: HTTPRequest.Method?, _ pattern: PathPattern, handler: @escaping Handler) {
        state.withLock { $0.stubs.append(Stub(method: method, pattern: pattern, handler: handler)) }
    }

    /// Removes every stub and recorded request (cancelled ones included).
    public func reset() {
        state.withLock { $0 = State() }
    }

    /// Every request received, in order.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// The requests whose exchange was cancelled while the stub was still answering (during a
    /// stub's ``StubResponse/delayed(by:)`` wait or its handler), in order: how a test checks
    /// that cancelling a caller's task, a publisher or a stream reached the transport.
    ///
    /// Only a cancelled task counts: a handler that throws `CancellationError` while nobody
    /// cancelled it is not recorded. Courier cancels the transport itself when a request's
    /// `RequestOptions.idleTimeout` runs out before the response starts, so such requests
    /// appear here too (the caller gets a timeout error).
    public var cancelledRequests: [RecordedRequest] { state.withLock { $0.cancelled } }

    /// The requests whose path, or path relative to the base URL, matches `pattern`.
    public func requests(matching pattern: PathPattern) -> [RecordedRequest] {
        requests.filter { pattern.matches($0.path) || pattern.matches($0.relativePath) }
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        var bytes = Data()
        if let body {
            for try await chunk in body { bytes.append(contentsOf: chunk) }
        }
        var recorded = RecordedRequest(request: request, body: bytes, operationName: context.operationName, attempt: context.attempt)
        recorded.relativePath = Self.relative(recorded.path, to: context.baseURL.path) ?? recorded.path
        let stub = state.withLock { state -> Stub? in
            state.requests.append(recorded)
            return state.stubs.last { stub in
                (stub.method == nil || stub.method == request.method)
                    && (stub.pattern.matches(recorded.path) || stub.pattern.matches(recorded.relativePath))
            }
        }
        guard let stub else { throw UnmatchedRequest(request: "\(request.method) \(Redaction.redactURL(recorded.url))") }
        let response: StubResponse
        do {
            response = try await stub.handler(recorded)
            if let delay = response.delay {
                let remaining = context.remainingTime
                if delay > remaining {
                    try await Task.sleep(for: remaining)
                    throw TransportError(.timeout, "no response before the deadline (stub delay \(delay))")
                }
                try await Task.sleep(for: delay)
            }
        } catch is CancellationError where Task.isCancelled {
            state.withLock { $0.cancelled.append(recorded) }
            throw CancellationError()
        }
        if let error = response.error {
            // As URLSessionTransport reports it: a stubbed `URLError(.notConnectedToInternet)`
            // is a network failure the client retries and reports as `.network`.
            if let urlError = error as? URLError { throw TransportError(urlError) }
            throw error
        }
        var head = HTTPResponse(status: .init(code: response.status))
        head.headerFields = response.headers
        if !head.headerFields.has(.contentLength) { head.headerFields.appendIfRoom(HTTPField(name: .contentLength, value: String(response.body.count))) }
        let responseBody = request.method == .head ? nil : HTTPBody(response.body)
        return (head, responseBody)
    }

    private static func relative(_ path: String, to base: String) -> String? {
        var base = Substring(base)
        while base.hasSuffix("/") { base = base.dropLast() }
        guard !base.isEmpty, path.hasPrefix(base) else { return nil }
        let rest = path.dropFirst(base.count)
        return rest.isEmpty ? "/" : (rest.hasPrefix("/") ? String(rest) : nil)
    }
}
