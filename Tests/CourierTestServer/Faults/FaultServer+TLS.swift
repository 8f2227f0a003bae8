import NIOCore
import NIOSSL

extension FaultServer {
    /// How a ``FaultServer`` speaks TLS: the certificate chain it presents and its key.
    ///
    /// `/truncate`, `/reset` and the other closing routes close the socket under TLS, without a
    /// close_notify; `/ok-then-close` closes its idle connection cleanly.
    public struct TLS: Sendable {
        /// The chain the server presents, leaf first.
        public var certificateChain: [NIOSSLCertificate]
        /// The leaf's private key.
        public var privateKey: NIOSSLPrivateKey

        /// Presents `certificate` (alone; clients trust its issuer directly).
        public init(_ certificate: TestCertificate) {
            self.init(certificateChain: [certificate.certificate], privateKey: certificate.privateKey)
        }

        /// Presents `certificateChain` with `privateKey`.
        public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }

        func serverConfiguration() -> TLSConfiguration {
            TLSConfiguration.makeServerConfiguration(certificateChain: certificateChain.map { .certificate($0) },
                                                     privateKey: .privateKey(privateKey))
        }
    }
}

/// Marks the front of a TLS fault server's pipeline: a close issued from here reaches the
/// socket without passing through the TLS handler.
/// It passes every outbound operation on unchanged.
final class RawSocketMarker: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = NIOAny
    static let name = "fault-raw-socket"
}
