public import AsyncHTTPClient
public import Courier
import Foundation
public import HTTPTypes
import NIOCore
import NIOSSL
public import OpenAPIRuntime

/// An AsyncHTTPClient transport that pins the certificates of some hosts
/// (``CertificatePinning``). Normal chain and hostname validation still apply.
///
/// A pin of the leaf is checked once the handshake is done. A pin of a trust anchor that the
/// configuration's `TLSConfiguration` names makes that host's connections trust only the pinned
/// anchors, so BoringSSL itself refuses a chain that ends anywhere else. Wildcard host keys
/// (`*.example.com`, `**.example.com`) work as in OkHttp; an invalid key fails every request.
/// A host pinned to anchors does not retry a failed connection itself (a refused chain would be
/// refused again): the failure is reported at once, and `RetryMiddleware` may retry it.
///
/// AsyncHTTPClient has no certificate-verification callback, so the pins are checked in its
/// connection initializers, once the TLS handshake is done and before the connection carries a
/// request. Each pinned host gets its own `HTTPClient` (so the check knows which host it is
/// looking at); other hosts share one. At most ``maxPinnedHostClients`` of those per-host
/// clients are kept: past that, the least recently used ones are shut down as soon as they
/// carry no request and no response body still being read (a wildcard pin and a server that
/// redirects to ever new subdomains would otherwise open a client, and its pooled connections,
/// per name). A mismatch fails every request waiting for that host
/// **at once** — rather than letting the connection pool retry the handshake until the deadline —
/// with a `TransportError` of kind `.tls` whose underlying error is a
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
    private let clients = Locked(PinnedClients())

    /// How many per-host clients are kept at most (beyond that, only while each carries a request
    /// or a response body still being read). Default 32; raise it when more pinned hosts than
    /// that are in use at once (shards of a CDN), or clients are made and shut down in turn.
    public let maxPinnedHostClients: Int

    /// The per-host clients, with what each is doing.
    struct PinnedClients {
        struct Slot {
            let entry: PinnedClient
            var inFlight = 0
            var lastUse: UInt64
        }
        var slots: [String: Slot] = [:]
        var uses: UInt64 = 0
        /// The root certificates the configuration trusts, read once (the system bundle holds
        /// over a hundred) when the first pinned host needs them.
        var configuredAnchors: [NIOSSLCertificate]?
        /// Shutdowns under way of clients let go, for ``shutdown()`` to wait for (each removes
        /// itself when done).
        var retiring: [UUID: Task<Void, Never>] = [:]
    }

    /// A client for one pinned host and the failures its connections reported.
    final class PinnedClient: Sendable {
        let client: HTTPClient
        let failures: PinFailures
        /// The pins of trust anchors this client's connections are limited to (empty: leaf pins only).
        let anchorPins: [CertificatePinning.Pin]
        init(client: HTTPClient, failures: PinFailures, anchorPins: [CertificatePinning.Pin]) {
            self.client = client
            self.failures = failures
            self.anchorPins = anchorPins
        }
    }

    /// Creates the transport. `configuration` (default: Courier's recommended one) applies to
    /// every host; set its `tlsConfiguration` for custom trust roots.
    public init(pinning: CertificatePinning, configuration: HTTPClient.Configuration = AsyncHTTPClientTransport.recommendedConfiguration(),
                maxPinnedHostClients: Int = 32) {
        self.pinning = pinning
        self.maxPinnedHostClients = max(1, maxPinnedHostClients)
        self.configuration = configuration
        self.unpinned = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.followsRedirects = ClientRedirectMode.follows(configuration) ?? false
        self.invalidEntry = pinning.invalidPatterns.first
    }

    /// The first entry of ``pinning`` that would pin nothing (every request is then refused).
    private let invalidEntry: String?

    /// Whether `configuration` follows redirects itself: every request is then refused.
    private let followsRedirects: Bool

    /// The idle read timeout of `configuration`.
    private var readTimeout: Duration? {
        configuration.timeout.read.map { .nanoseconds($0.nanoseconds) }
    }

    /// Shuts the underlying clients down. Call it when you are done with the transport.
    public func shutdown() async throws {
        let (pinned, retiring) = clients.withLock { clients in
            defer { clients = PinnedClients() }
            return (clients.slots.values.map(\.entry), Array(clients.retiring.values))
        }
        for task in retiring { await task.value }
        for entry in pinned { try await entry.client.shutdown() }
        try await unpinned.shutdown()
    }

    /// The number of per-host clients kept now, and of those let go whose shutdown is under way
    /// (for tests).
    var pinnedHostClientCounts: (kept: Int, retiring: Int) { clients.withLock { ($0.slots.count, $0.retiring.count) } }

    /// Sends the request, checking the host's pins before any byte of it is written.
    public func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        if followsRedirects { throw ClientRedirectMode.refusal }
        let host = Self.host(of: request.authority ?? "")
        if let invalid = invalidEntry {
            let error = CertificatePinningError(host: host, expected: [], received: nil,
                                                reason: "the pinning entry '\(invalid)' would pin nothing: a key must be a host name, an IP address, '*.name' or '**.name' (no scheme, port or path), each pin a base64 SHA-256 hash, each excluded host a host name; fix the CertificatePinning")
            throw TransportError(.tls, error.description, underlying: error, requestMayHaveBeenSent: false)
        }
        guard let pins = pinning.pins(for: host) else {
            return try await AsyncHTTPClientTransport(checkedClient: unpinned, configuration: configuration, clientReadTimeout: readTimeout)
                .send(request, body: body, context: context)
        }
        guard request.scheme?.lowercased() == "https" else {
            let error = CertificatePinningError(host: host, expected: pins, received: nil, reason: "the request is not https")
            throw TransportError(.tls, error.description, underlying: error, requestMayHaveBeenSent: false)
        }
        let pinned = checkOut(host: host, pins: pins)
        // The client is busy until the response body is done with, not only until its head
        // arrived: shutting it down would cut a body still streaming.
        let checkout = PinnedCheckout { [clients, maxPinnedHostClients] in Self.checkIn(clients, limit: maxPinnedHostClients, host: host, pinned) }
        let response: (HTTPResponse, HTTPBody?)
        do {
            response = try await send(request, body: body, context: context, host: host, pinned: pinned)
        } catch {
            checkout.release()
            throw error
        }
        // A body already read whole (AsyncHTTPClientTransport left its bytes for the client)
        // holds no connection.
        guard let responseBody = response.1, context.bodyChannels.wholeResponse?.holds(responseBody) != true else {
            checkout.release()
            return response
        }
        return (response.0, HTTPBody(OwnedResponseBody(body: responseBody, owner: checkout),
                                     length: responseBody.length, iterationBehavior: responseBody.iterationBehavior))
    }

    /// `request` over `pinned`, failing at once when one of its connections fails the pins.
    private func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext, host: String, pinned: PinnedClient) async throws -> (HTTPResponse, HTTPBody?) {
        let transport = AsyncHTTPClientTransport(checkedClient: pinned.client, configuration: configuration, clientReadTimeout: readTimeout)
        let failures = pinned.failures
        let generation = failures.generation
        let anchorPins = pinned.anchorPins
        do {
            return try await withThrowingTaskGroup(of: (HTTPResponse, HTTPBody?).self) { group in
                group.addTask { try await transport.send(request, body: body, context: context) }
                group.addTask {
                    let error = try await failures.wait(after: generation)
                    throw TransportError(.tls, error.description, underlying: error, requestMayHaveBeenSent: false)
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let error as TransportError where error.kind == .tls && !anchorPins.isEmpty && !(error.underlying is CertificatePinningError) {
            // The handshake failed with trust limited to the pinned anchors: say so.
            let pinning = CertificatePinningError(
                host: host, expected: anchorPins, received: nil,
                reason: "the TLS handshake failed with trust limited to the pinned certificate authorities "
                    + anchorPins.map(\.description).joined(separator: ", ") + " (a chain that ends at another root fails here): \(error.message)")
            throw TransportError(.tls, pinning.description, underlying: pinning, requestMayHaveBeenSent: false)
        }
    }

    /// The client of `host`, marked as carrying one more request (``checkIn(host:_:)`` ends it).
    /// Makes the client if there is none, and lets go of the least recently used idle ones past
    /// ``maxPinnedHostClients``.
    func checkOut(host: String, pins: [CertificatePinning.Pin]) -> PinnedClient {
        clients.withLock { clients in
            clients.uses += 1
            if clients.slots[host] == nil {
                clients.slots[host] = PinnedClients.Slot(entry: makeClient(for: host, pins: pins, clients: &clients), lastUse: clients.uses)
                Self.letGoOfIdleClients(&clients, registry: self.clients, limit: maxPinnedHostClients, keeping: host)
            }
            clients.slots[host]!.inFlight += 1
            clients.slots[host]!.lastUse = clients.uses
            return clients.slots[host]!.entry
        }
    }

    /// Ends a request ``checkOut(host:pins:)`` started on `entry`, and lets go of idle clients
    /// if more than ``maxPinnedHostClients`` are kept.
    func checkIn(host: String, _ entry: PinnedClient) {
        Self.checkIn(clients, limit: maxPinnedHostClients, host: host, entry)
    }

    private static func checkIn(_ registry: Locked<PinnedClients>, limit: Int, host: String, _ entry: PinnedClient) {
        registry.withLock { clients in
            // The slot is the entry's own unless the transport was shut down meanwhile.
            guard let slot = clients.slots[host], slot.entry === entry else { return }
            clients.slots[host]!.inFlight -= 1
            letGoOfIdleClients(&clients, registry: registry, limit: limit, keeping: nil)
        }
    }

    /// Shuts down the least recently used clients that carry no request while more than
    /// `limit` are kept (never the client of `keeping`).
    private static func letGoOfIdleClients(_ clients: inout PinnedClients, registry: Locked<PinnedClients>, limit: Int, keeping: String?) {
        let excess = clients.slots.count - limit
        guard excess > 0 else { return }
        let idle = clients.slots.filter { $0.key != keeping && $0.value.inFlight == 0 }
            .sorted { $0.value.lastUse < $1.value.lastUse }.prefix(excess)
        for (name, slot) in idle {
            clients.slots[name] = nil
            let client = slot.entry.client
            let id = UUID()
            // Registered before the task can end: it takes the same lock to leave.
            clients.retiring[id] = Task {
                try? await client.shutdown()
                registry.withLock { $0.retiring[id] = nil }
            }
        }
    }

    private func makeClient(for host: String, pins: [CertificatePinning.Pin], clients: inout PinnedClients) -> PinnedClient {
        do {
            let failures = PinFailures()
            var configuration = self.configuration
            // Pins of trust anchors the configuration names: limit this host's trust to them.
            var tls = configuration.tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
            var anchors: [NIOSSLCertificate] = []
            if case .none = tls.certificateVerification {
                // Nothing verifies the chain, so an anchor pin cannot be relied on: leaf pins only.
            } else {
                let configured = clients.configuredAnchors ?? Self.trustAnchors(of: tls)
                clients.configuredAnchors = configured
                anchors = configured.filter { anchor in pins.contains { $0.matches(anchor) } }
            }
            let anchorPins = pins.filter { pin in anchors.contains { pin.matches($0) } }
            if !anchors.isEmpty {
                tls.trustRoots = .certificates(anchors)
                tls.additionalTrustRoots = []
                configuration.tlsConfiguration = tls
                // A chain refused under the pinned anchors is refused again on every retry:
                // report it at once rather than retrying the handshake until the deadline.
                configuration.connectionPool.retryConnectionEstablishment = false
            }
            let check: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
                channel.eventLoop.submit {
                    let handler = try? channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
                    let error: CertificatePinningError?
                    if let handler, let certificate = handler.peerCertificate {
                        // With anchor pins, BoringSSL already verified a chain to a pinned anchor.
                        error = !anchorPins.isEmpty || pins.contains { $0.matches(certificate) }
                            ? nil
                            : CertificatePinningError(host: host, expected: pins, received: try? .spki(of: certificate))
                    } else {
                        error = CertificatePinningError(host: host, expected: pins, received: nil, reason: "the server presented no certificate")
                    }
                    if let error {
                        failures.fail(error)
                        throw error
                    }
                }.flatMapError { error in
                    // AsyncHTTPClient does not close a connection whose debug initializer fails: a
                    // refused server (a man in the middle) would keep each one open, a descriptor
                    // per request. Closed here, and the failure reported once it is closed: the
                    // pool then still counts the connection as starting and ignores its close,
                    // where a close reported after the failure (while the pool backs off) would
                    // find it gone.
                    channel.close(promise: nil)
                    return channel.closeFuture.flatMapThrowing { _ in throw error }
                }
            }
            configuration.http1_1ConnectionDebugInitializer = check
            configuration.http2ConnectionDebugInitializer = check
            return PinnedClient(client: HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration),
                                failures: failures, anchorPins: anchorPins)
        }
    }

    /// The root certificates `tls` trusts and names: `trustRoots` (the system bundle for
    /// `.default` on Linux), then `additionalTrustRoots`. Files that cannot be read are skipped.
    static func trustAnchors(of tls: TLSConfiguration) -> [NIOSSLCertificate] {
        func load(_ path: String) -> [NIOSSLCertificate] { (try? NIOSSLCertificate.fromPEMFile(path)) ?? [] }
        var anchors: [NIOSSLCertificate] = []
        switch tls.trustRoots ?? .default {
        case .certificates(let certificates): anchors += certificates
        case .file(let path): anchors += load(path)
        case .default: anchors += systemBundlePaths.lazy.map(load).first { !$0.isEmpty } ?? []
        }
        for extra in tls.additionalTrustRoots {
            switch extra {
            case .certificates(let certificates): anchors += certificates
            case .file(let path): anchors += load(path)
            }
        }
        return anchors
    }

    /// Where Linux distributions keep the system's root certificates (as NIOSSL looks for them).
    static let systemBundlePaths = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
                                    "/etc/ssl/ca-bundle.pem", "/etc/pki/tls/cacert.pem", "/etc/ssl/cert.pem"]

    /// `host` of `host:port` or `[v6]:port`, percent-decoded as AsyncHTTPClient decodes it
    /// before it connects (an authority a middleware wrote: Courier's own are decoded already).
    static func host(of authority: String) -> String {
        var authority = Substring(authority.contains("%") ? authority.removingPercentEncoding ?? authority : authority)
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
    /// Where one `wait` stands. Its entry exists from the start of the wait to its end, so a
    /// cancellation that arrives before the waiter is registered, or after it was woken, is told
    /// apart without leaving anything behind.
    private enum Waiter {
        /// Waiting has begun; the continuation is not registered yet.
        case pending
        case waiting(CheckedContinuation<CertificatePinningError, any Error>)
        /// Woken by a failure or cancelled: nothing may resume it again.
        case done
    }
    private struct State {
        var generation = 0
        var last: CertificatePinningError?
        var waiters: [UUID: Waiter] = [:]
    }
    private let state = Locked(State())

    /// The number of failures so far.
    var generation: Int { state.withLock { $0.generation } }

    /// Waits under way (for tests: zero once every `wait` has returned).
    var entryCount: Int { state.withLock { $0.waiters.count } }

    /// Records a failure and wakes every waiter.
    func fail(_ error: CertificatePinningError) {
        let woken = state.withLock { state in
            state.generation += 1
            state.last = error
            var woken: [CheckedContinuation<CertificatePinningError, any Error>] = []
            for (id, waiter) in state.waiters {
                if case .waiting(let continuation) = waiter {
                    woken.append(continuation)
                    state.waiters[id] = .done
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume(returning: error) }
    }

    /// Waits for a failure after `generation` (returns at once if one happened already).
    func wait(after generation: Int) async throws -> CertificatePinningError {
        let id = UUID()
        state.withLock { $0.waiters[id] = .pending }
        defer { state.withLock { _ = $0.waiters.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<CertificatePinningError, any Error>? = state.withLock { state in
                    if case .done = state.waiters[id] { return .failure(CancellationError()) }
                    if state.generation > generation, let last = state.last { return .success(last) }
                    state.waiters[id] = .waiting(continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<CertificatePinningError, any Error>? in
                guard let waiter = state.waiters[id] else { return nil }
                state.waiters[id] = .done
                if case .waiting(let continuation) = waiter { return continuation }
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }
}
