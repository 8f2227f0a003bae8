import AsyncHTTPClient
import Courier
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// Maps AsyncHTTPClient and SwiftNIO errors to ``TransportError`` kinds.
enum AsyncHTTPClientErrors {
    /// The limits of an `HTTPClient`'s configuration, as far as the transport knows them: a
    /// timeout they raise is reported with its own limit, not as the request's deadline.
    struct ClientTimeouts: Sendable {
        /// Connecting, the TLS and proxy handshakes, and the wait for a pooled connection
        /// (AsyncHTTPClient's connection-creation deadline: 10 s when none is configured).
        var connect: Duration?
        /// The idle read timeout, from the request's end to the head and between body chunks.
        var read: Duration?
        /// The idle write timeout.
        var write: Duration?

        /// Nothing known.
        static let unknown = ClientTimeouts()

        /// The timeouts of `configuration`; `read` when the configuration has none of its own.
        init(_ configuration: HTTPClient.Configuration?, read: Duration?) {
            func duration(_ amount: TimeAmount?) -> Duration? { amount.map { .nanoseconds($0.nanoseconds) } }
            guard let configuration else {
                self.read = read
                return
            }
            self.connect = duration(configuration.timeout.connect) ?? .seconds(10)
            self.read = duration(configuration.timeout.read) ?? read
            self.write = duration(configuration.timeout.write)
        }

        private init() {}
    }

    /// What a failed connection attempt says about the network: a DNS failure when no address
    /// was found, else the first socket error the attempts gave (`ECONNREFUSED`,
    /// `ENETUNREACH`…).
    static func cause(of error: NIOConnectionError) -> NetworkFailure? {
        if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil { return .hostNotFound }
        for attempt in error.connectionErrors {
            if let io = attempt.error as? IOError, let cause = NetworkFailure(errno: io.errnoCode) { return cause }
        }
        return error.dnsAError != nil && error.dnsAAAAError != nil ? .hostNotFound : nil
    }

    static func map(_ error: any Error, timeouts: ClientTimeouts = .unknown) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout:
                return TransportError(.timeout, "nothing arrived within the HTTPClient's read timeout", underlying: error,
                                      timeLimit: timeouts.read)
            case .writeTimeout:
                return TransportError(.timeout, "the connection took no bytes within the HTTPClient's write timeout", underlying: error,
                                      timeLimit: timeouts.write)
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                let what = error == .connectTimeout ? "could not connect"
                    : error == .tlsHandshakeTimeout ? "the TLS handshake did not finish" : "no connection of the pool became free"
                return TransportError(.timeout, "\(what) within the HTTPClient's connect timeout", underlying: error,
                                      requestMayHaveBeenSent: false, timeLimit: timeouts.connect)
            case .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                return TransportError(.timeout, "the proxy handshake did not finish within the HTTPClient's connect timeout", underlying: error,
                                      timeLimit: timeouts.connect)
            case .deadlineExceeded:
                return TransportError(.timeout, "\(error)", underlying: error)
            case .cancelled, .requestStreamCancelled:
                return TransportError(.cancelled, "the request was cancelled", underlying: error)
            case .remoteConnectionClosed:
                return TransportError(.connectionLost, "the server closed the connection before the response was complete", underlying: error)
            case .bodyLengthMismatch:
                return TransportError(.invalidRequest, "the request body is longer or shorter than its declared length", underlying: error)
            case .invalidURL, .emptyHost, .emptyScheme:
                return TransportError(.invalidRequest, "\(error)", underlying: error, requestMayHaveBeenSent: false)
            default:
                return TransportError(.other, "\(error)", underlying: error)
            }
        }
        if let error = error as? HTTPParserError {
            // A body cut short by the server closing the connection surfaces as the parser
            // reaching EOF in the middle of a message.
            if case .invalidEOFState = error {
                return TransportError(.connectionLost, "the connection closed before the response was complete", underlying: error)
            }
            return TransportError(.other, "malformed HTTP response: \(error)", underlying: error)
        }
        if let error = error as? NIOHTTPDecompression.DecompressionError {
            if error == .limit {
                // Only a client configured with a ratio or size limit of its own gets here;
                // Courier's limit is maxResponseSize on the decoded bytes.
                return TransportError(.other, "the compressed response exceeds the HTTPClient's own decompression limit (its configuration's `decompression: .enabled(limit:)`)", underlying: error)
            }
            return TransportError(.other, "the compressed response could not be inflated: \(error)", underlying: error)
        }
        if let error = error as? NIOSSLError {
            switch error {
            case .uncleanShutdown:
                // The connection ended without TLS close_notify: a truncation, not a handshake failure.
                return TransportError(.connectionLost, "the connection closed without a TLS close_notify before the response was complete", underlying: error)
            case .handshakeFailed, .cannotMatchULabel, .noCertificateToValidate, .unableToValidateCertificate, .cannotFindPeerIP:
                return TransportError(.tls, "the TLS handshake failed: \(error)", underlying: error, requestMayHaveBeenSent: false)
            default:
                return TransportError(.tls, "TLS error: \(error)", underlying: error)
            }
        }
        if let error = error as? NIOSSLExtraError {
            return TransportError(.tls, "the TLS handshake failed: \(error)", underlying: error, requestMayHaveBeenSent: false)
        }
        if let error = error as? NIOConnectionError {
            var failure = TransportError(.connectionFailed, "could not connect to \(error.host):\(error.port)", underlying: error, requestMayHaveBeenSent: false)
            failure.cause = cause(of: error)
            return failure
        }
        if let error = error as? IOError {
            var failure = TransportError(.connectionLost, "I/O error: \(error)", underlying: error)
            // Only the errors a connect gives (no route, refused, host unreachable) say nothing
            // was sent; a timeout or reset on an open connection stays `connectionLost`, which
            // may have sent the request (a retry must not assume otherwise).
            if let cause = NetworkFailure(errno: error.errnoCode), [.offline, .connectionRefused, .cannotConnect].contains(cause) {
                failure = TransportError(.connectionFailed, "could not connect: \(error)", underlying: error, requestMayHaveBeenSent: false)
                failure.cause = cause
            }
            return failure
        }
        if error is ChannelError {
            return TransportError(.connectionLost, "\(error)", underlying: error)
        }
        return TransportError(.other, "\(error)", underlying: error)
    }
}
