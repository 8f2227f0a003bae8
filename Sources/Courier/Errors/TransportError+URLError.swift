import Foundation

extension TransportError {
    /// What a `URLError` means to Courier: the kind a retry, a log line and ``APIError`` read.
    /// URLSession reports its failures this way; `StubTransport` maps a stubbed `URLError` the
    /// same, so a test of "offline" takes the path the app takes on a real network failure.
    package init(_ urlError: URLError) {
        switch urlError.code {
        case .timedOut:
            self.init(.timeout, "timed out", underlying: urlError)
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            self.init(.connectionFailed, urlError.localizedDescription, underlying: urlError, requestMayHaveBeenSent: false)
        case .networkConnectionLost:
            self.init(.connectionLost, "the connection was lost", underlying: urlError)
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            self.init(.tls, urlError.localizedDescription, underlying: urlError)
        case .cancelled:
            self.init(.cancelled, "cancelled", underlying: urlError)
        default:
            // FoundationNetworking reports libcurl's "transfer closed with N bytes remaining"
            // (a body cut short) and resets as an unknown error: recognise them by their text.
            let text = urlError.localizedDescription.lowercased()
            if text.contains("transfer closed") || text.contains("connection reset") || text.contains("recv failure") || text.contains("empty reply") {
                self.init(.connectionLost, urlError.localizedDescription, underlying: urlError)
            } else if text.contains("ssl") || text.contains("certificate") || text.contains("tls") {
                // libcurl's certificate and handshake failures ("SSL certificate problem: …",
                // "SSL connect error") arrive as `.unknown` too; nothing was sent.
                self.init(.tls, urlError.localizedDescription, underlying: urlError, requestMayHaveBeenSent: false)
            } else {
                self.init(.other, urlError.localizedDescription, underlying: urlError)
            }
        }
    }
}
