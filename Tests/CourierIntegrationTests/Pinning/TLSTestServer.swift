import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A minimal HTTPS server on 127.0.0.1 for the pinning tests: answers every request with
/// `200 ok` and counts the requests that reached it.
final class TLSTestServer: Sendable {
    /// A self-signed P-256 certificate for `127.0.0.1` and `localhost` (valid until 2126).
    static let certificatePEM = """
    -----BEGIN CERTIFICATE-----
    MIIBmzCCAUGgAwIBAgIUJAg/svVJW9187totn/rXMoBGt8QwCgYIKoZIzj0EAwIw
    FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMjIzMDMwMloYDzIxMjYxMDI5
    MjMwMzAyWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
    PQMBBwNCAASlMq7QInTM6ncwz92Y4Co1EM+t95BQUZ7GmAZ1DNZt2uEe6JsxHE/v
    pyrbDnee5MjmMzlU8Y95Jux1ZapiPJ27o28wbTAdBgNVHQ4EFgQUF5ZuXs0mRCDU
    zeLymRgCMLBeRDMwHwYDVR0jBBgwFoAUF5ZuXs0mRCDUzeLymRgCMLBeRDMwDwYD
    VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
    zj0EAwIDSAAwRQIgCK1AHFi0p4EDQRWh3048t52j1JlPFmoLDPGubE4p+VQCIQCR
    TsFkWyP9pCtO0Ks4beEKCSYZGnCgomcRPc+xsaUkhA==
    -----END CERTIFICATE-----
    """
    /// Its private key (test-only).
    static let keyPEM = """
    -----BEGIN PRIVATE KEY-----
    MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgXg9E3uMJVzDJq3KL
    JSYxa6BzTGs55+Vw5pfKSnARho6hRANCAASlMq7QInTM6ncwz92Y4Co1EM+t95BQ
    UZ7GmAZ1DNZt2uEe6JsxHE/vpyrbDnee5MjmMzlU8Y95Jux1ZapiPJ27
    -----END PRIVATE KEY-----
    """
    /// `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    static let spkiPin = "btaQPmsrSFwJoauFgTBpv1na7Y8IO6Uie6VOeXDVuC0="
    /// `openssl x509 -outform der | openssl dgst -sha256 -binary | base64`
    static let certificatePin = "OqDk788Z2Ovde4O0STPsUPsLSvfCX8Jj0dsnOVIIiSY="

    static var certificate: NIOSSLCertificate { try! NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem) }

    let channel: any Channel
    let counter: RequestCounter
    var port: Int { channel.localAddress?.port ?? 0 }

    private init(channel: any Channel, counter: RequestCounter) {
        self.channel = channel
        self.counter = counter
    }

    static func start() async throws -> TLSTestServer {
        let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        let context = try NIOSSLContext(configuration: configuration)
        let counter = RequestCounter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(OKHandler(counter: counter))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return TLSTestServer(channel: channel, counter: counter)
    }

    func stop() async throws { try await channel.close() }

    final class RequestCounter: @unchecked Sendable {  // guarded by `lock`
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.lock(); count += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }

    final class OKHandler: ChannelInboundHandler, @unchecked Sendable {  // used on its channel's event loop only
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let counter: RequestCounter
        init(counter: RequestCounter) { self.counter = counter }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            counter.increment()
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: "2")
            headers.add(name: "Content-Type", value: "text/plain")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "ok")))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
