import AsyncHTTPClient
import Courier
import Foundation
import HTTPTypes
import NIOCore
import NIOSSL
import OpenAPIRuntime

/// An AsyncHTTPClient transport that pins the certificates of some hosts
/// (``CertificatePinning``). Normal chain and hostname validation still apply.
///
/// AsyncHTTPClient has no certificate-verification callback, so the pins are checked in its
/// connection initializers, once the TLS handshake is done and before the connection carries a
/// request. Each pinned host gets its own `HTTPClient` (so the check knows which host it is
/// looking at); other hosts share one. A mismatch fails every request waiting for that host
/// **at once** — rather than letting the connection pool retry the handshake until the deadline —
/// with a ``Courier/TransportError`` of kind `.tls` whose underlying error is a
/// ``CertificatePinningError``, and `requestMayHaveBeenSent` false: no request byte was written.
///
/// ```swift
/// let transport = PinningAsyncHTTPClientTransport(pinning: CertificatePinning(
///     pins: ["api.example.com": [.spki("btaQPmsrSFwJoauFgTBpv1na7Y8IO6Uie6VOeXDVuC0=")]]))
/// let client = APIClient(configuration: configuration, transport: transport)
/// // ...
/// try await transport.shutdown()
/// ```
public final class PinningAsyncHTTPClientTransport: Transport {
    /// The pinning policy.
    public let pinning: CertificatePinning
    private let configuration: HTTPClient.Configuration
    private let unpinned: HTTPClient
    private let clients = Locked([String: PinnedClient]())

    /// A client for one pinned host and the failures its connections reported.
    final class PinnedClient: Sendable {
        let client: HTTPClient
        let failures: PinFailures
        init(client: HTTPClient, failures: PinFailures) {
            self.client = client
            self.failures = failures
        }
    }

    /// Creates the transport. `configuration` (default: Courier's recommended one) applies to
    /// every host; set its `tlsConfiguration` for custom trust roots.
    public init(pinning: CertificatePinning, configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.recommendedConfiguration()) {
        self.pinning = pinning
        self.configuration = configuration
        self.unpinned = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// The idle read timeout of `configuration`.
    private var readTimeout: Duration? {
        configuration.timeout.read.map { .nanoseconds($0.nanoseconds) }
    }

    /// Shuts the underlying clients down. Call it when you are done with the transport.
    public func shutdown() async throws {
        let pinned = clients.withLock { clients in defer { clients = [:] }; return Array(clients.values) }
        for entry in pinned { try await entry.client.shutdown() }
        try await unpinned.shutdown()
    }

    /// Sends the request, checking the host's pins before any byte of it is written.
    public func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        let host = Self.host(of: request.authority ?? "")
        guard let pins = pinning.pins(for: host) else {
            return try await AsyncHTTPClientTransport(client: unpinned, requestsCompression: true, clientReadTimeout: readTimeout).send(request, body: body, context: context)
        }
        guard request.scheme?.lowercased() == "https" else {
            let error = CertificatePinningError(host: host, expected: pins, received: nil, reason: "the request is not https")
            throw TransportError(.tls, error.description, underlying: error, requestMayHaveBeenSent: false)
        }
        let pinned = client(for: host, pins: pins)
        let transport = AsyncHTTPClientTransport(client: pinned.client, requestsCompression: true, clientReadTimeout: readTimeout)
        let failures = pinned.failures
        let generation = failures.generation
        return try await withThrowingTaskGroup(of: (HTTPResponse, HTTPBody?).self) { group in
            group.addTask { try await transport.send(request, body: body, context: context) }
            group.addTask {
                let error = try await failures.wait(after: generation)
                throw TransportError(.tls, error.description, underlying: error, requestMayHaveBeenSent: false)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    private func client(for host: String, pins: [CertificatePinning.Pin]) -> PinnedClient {
        clients.withLock { clients in
            if let existing = clients[host] { return existing }
            let failures = PinFailures()
            var configuration = self.configuration
            let check: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
                channel.eventLoop.submit {
                    let handler = try? channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
                    let error: CertificatePinningError?
                    if let handler, let certificate = handler.peerCertificate {
                        error = pins.contains { $0.matches(certificate) }
                            ? nil
                            : CertificatePinningError(host: host, expected: pins, received: try? .spki(of: certificate))
                    } else {
                        error = CertificatePinningError(host: host, expected: pins, received: nil, reason: "the server presented no certificate")
                    }
                    if let error {
                        failures.fail(error)
                        throw error
                    }
                }
            }
            configuration.http1_1ConnectionDebugInitializer = check
            configuration.http2ConnectionDebugInitializer = check
            let entry = PinnedClient(client: HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration),
                                     failures: failures)
            clients[host] = entry
            return entry
        }
    }

    /// `host` of `host:port` or `[v6]:port`.
    static func host(of authority: String) -> String {
        var authority = Substring(authority)
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close]).lowercased()
        }
        if let colon = authority.lastIndex(of: ":") { authority = authority[..<colon] }
        return authority.lowercased()
    }
}

/// Pinning failures of one host, for the requests waiting on it.
final class PinFailures: Sendable {
    private struct State {
        var generation = 0
        var last: CertificatePinningError?
        var waiters: [UUID: (generation: Int, continuation: CheckedContinuation<CertificatePinningError, any Error>)] = [:]
        /// Waiters cancelled before they were registered.
        var cancelled: Set<UUID> = []
    }
    private let state = Locked(State())

    /// The number of failures so far.
    var generation: Int { state.withLock { $0.generation } }

    /// Records a failure and wakes every waiter.
    func fail(_ error: CertificatePinningError) {
        let waiters = state.withLock { state in
            state.generation += 1
            state.last = error
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume(returning: error) }
    }

    /// Waits for a failure after `generation` (returns at once if one happened already).
    func wait(after generation: Int) async throws -> CertificatePinningError {
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<CertificatePinningError, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if state.generation > generation, let last = state.last { return .success(last) }
                    state.waiters[id] = (generation, continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                if waiter == nil { state.cancelled.insert(id) }
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
