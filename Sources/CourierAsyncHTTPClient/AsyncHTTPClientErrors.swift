import AsyncHTTPClient
import Courier
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// Maps AsyncHTTPClient and SwiftNIO errors to ``TransportError`` kinds.
enum AsyncHTTPClientErrors {
    static func map(_ error: any Error) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                 .getConnectionFromPoolTimeout, .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                return TransportError(.timeout, "\(error)", underlying: error,
                                      requestMayHaveBeenSent: error != .connectTimeout && error != .getConnectionFromPoolTimeout && error != .tlsHandshakeTimeout)
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
            return TransportError(.connectionFailed, "could not connect to \(error.host):\(error.port)", underlying: error, requestMayHaveBeenSent: false)
        }
        if let error = error as? IOError {
            return TransportError(.connectionLost, "I/O error: \(error)", underlying: error)
        }
        if error is ChannelError {
            return TransportError(.connectionLost, "\(error)", underlying: error)
        }
        return TransportError(.other, "\(error)", underlying: error)
    }
}
