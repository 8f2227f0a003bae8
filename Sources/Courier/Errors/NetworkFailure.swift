import Foundation

/// The network condition behind a failure, in the terms an app shows its user: no network, a
/// host that does not exist, a server that refused, a timeout, a TLS failure, a connection lost
/// half-way. These are the questions code written for `URLSession` asks of `URLError.code`
/// (`.notConnectedToInternet`, `.cannotFindHost`, `.timedOut`…), answered the same on every
/// transport — `URLSessionTransport` on Apple platforms and Linux, `AsyncHTTPClientTransport`,
/// a `StubTransport` stubbing a `URLError`:
///
/// ```swift
/// do {
///     let config = try await client.send(ConfigRequest())
/// } catch let error as APIError {
///     switch error.networkFailure {
///     case .offline?: showAlert("No network connection")
///     case .timedOut?: showAlert("Request timed out")
///     case .some(let failure): showAlert("Network error: \(failure)")
///     case nil: showAlert(error.description)          // an HTTP status, a decoding failure…
///     }
/// }
/// ```
///
/// Read it on ``APIError/networkFailure`` or ``TransportError/networkFailure``. New values may
/// be added in minor releases: keep a `default:` (or `.some`) in a `switch`.
public struct NetworkFailure: Sendable, Hashable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The device has no usable network: `URLError.notConnectedToInternet`; on Linux a socket
    /// error saying the network is unreachable or down (`ENETUNREACH`, `ENETDOWN`).
    public static let offline = NetworkFailure("offline")
    /// The host name could not be resolved (DNS): `URLError.cannotFindHost` and
    /// `.dnsLookupFailed`; the resolver's failure on the SwiftNIO transport.
    public static let hostNotFound = NetworkFailure("host not found")
    /// The host was reached and refused the connection (nothing listens on the port):
    /// `ECONNREFUSED`; `URLError.cannotConnectToHost`.
    public static let connectionRefused = NetworkFailure("connection refused")
    /// No connection could be made for another reason (the host unreachable, a proxy…).
    public static let cannotConnect = NetworkFailure("cannot connect")
    /// The request's deadline or a transport's time limit passed: `URLError.timedOut`.
    public static let timedOut = NetworkFailure("timed out")
    /// TLS failed: the handshake, the certificate or pinning (`URLError.secureConnectionFailed`,
    /// `.serverCertificateUntrusted`…).
    public static let tls = NetworkFailure("TLS failure")
    /// The connection closed before the response was complete: `URLError.networkConnectionLost`.
    public static let connectionLost = NetworkFailure("connection lost")

    /// A short name: `offline`, `host not found`, `timed out`…
    public var description: String { name }

    /// What a `URLError` code says, `nil` for codes that are not about the network.
    package init?(_ code: URLError.Code) {
        switch code {
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff: self = .offline
        case .cannotFindHost, .dnsLookupFailed: self = .hostNotFound
        case .cannotConnectToHost: self = .connectionRefused
        case .timedOut: self = .timedOut
        case .networkConnectionLost: self = .connectionLost
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired:
            self = .tls
        default: return nil
        }
    }

    /// What a socket error number says (`errno` of a failed `connect`), `nil` for others.
    package init?(errno code: Int32) {
        switch code {
        case ENETUNREACH, ENETDOWN: self = .offline
        case ECONNREFUSED: self = .connectionRefused
        case EHOSTUNREACH, EHOSTDOWN, EADDRNOTAVAIL: self = .cannotConnect
        case ETIMEDOUT: self = .timedOut
        case ECONNRESET, EPIPE, ECONNABORTED: self = .connectionLost
        default: return nil
        }
    }
}

extension TransportError {
    /// The network condition behind this failure (see ``NetworkFailure``): what the transport
    /// found, else what the kind says (`timeout` → ``NetworkFailure/timedOut``, `tls` →
    /// ``NetworkFailure/tls``, `connectionLost` → ``NetworkFailure/connectionLost``,
    /// `connectionFailed` → ``NetworkFailure/cannotConnect``); `nil` for failures that are not
    /// about the network (a local file, an invalid request, a cancellation).
    public var networkFailure: NetworkFailure? {
        if let cause { return cause }
        if let urlError = underlying as? URLError, let failure = NetworkFailure(urlError.code) { return failure }
        switch kind {
        case .timeout: return .timedOut
        case .tls: return .tls
        case .connectionLost: return .connectionLost
        case .connectionFailed: return .cannotConnect
        default: return nil
        }
    }

    /// The `URLError` underneath, when the transport reported one (`URLSessionTransport`, a stub).
    public var urlError: URLError? { underlying as? URLError }
}

extension APIError {
    /// The network condition behind this error (see ``NetworkFailure``): ``NetworkFailure/timedOut``
    /// for a ``Kind/timeout`` (Courier's deadline or a transport's limit), the transport's
    /// answer for a ``Kind/network`` failure, `nil` for the others (an HTTP status, a decoding
    /// failure…). Answers `URLError.code`'s questions on every transport.
    public var networkFailure: NetworkFailure? {
        if kind == .timeout { return .timedOut }
        return (underlyingError as? TransportError)?.networkFailure
    }

    /// The `URLError` underneath, where the platform's transport gave one
    /// (`URLSessionTransport`); `nil` over `AsyncHTTPClientTransport`, which has none. Prefer
    /// ``networkFailure``, which answers on every transport.
    public var urlError: URLError? {
        (underlyingError as? URLError) ?? (underlyingError as? TransportError)?.urlError
    }
}
