import Crypto
import Foundation
import NIOSSL

/// Which server keys or certificates are trusted, per host, on top of normal chain and
/// hostname validation (which still apply).
///
/// Pins are SHA-256 hashes, base64-encoded, as OkHttp and curl write them: of the leaf's DER
/// SubjectPublicKeyInfo (`spki`, survives certificate renewal with the same key), or of the whole
/// DER certificate (`certificate`). A host with pins must present a leaf matching one of them; a
/// host without pins, or listed in `excludedHosts`, is not pinned.
///
/// ```swift
/// let pinning = CertificatePinning(
///     pins: ["api.example.com": [.spki("btaQPmsrSFwJoauFgTBpv1na7Y8IO6Uie6VOeXDVuC0="),
///                                .spki("<backup key's pin>")]],
///     excludedHosts: ["cdn.example.com"])
/// let transport = PinningAsyncHTTPClientTransport(pinning: pinning)
/// ```
///
/// Compute a pin with `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der
/// | openssl dgst -sha256 -binary | base64`, or ``Pin/spki(of:)``.
public struct CertificatePinning: Sendable {
    /// One acceptable key or certificate.
    public struct Pin: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable { case spki, certificate }
        let kind: Kind
        /// The SHA-256 hash.
        public let sha256: Data

        /// A pin of a SubjectPublicKeyInfo's SHA-256, base64-encoded (`sha256/` prefix allowed).
        public static func spki(_ base64: String) -> Pin { Pin(kind: .spki, sha256: decode(base64)) }
        /// A pin of a DER certificate's SHA-256, base64-encoded.
        public static func certificate(_ base64: String) -> Pin { Pin(kind: .certificate, sha256: decode(base64)) }

        /// The SPKI pin of a certificate.
        public static func spki(of certificate: NIOSSLCertificate) throws -> Pin {
            Pin(kind: .spki, sha256: Data(SHA256.hash(data: try certificate.extractPublicKey().toSPKIBytes())))
        }

        /// The certificate pin of a certificate.
        public static func certificate(of certificate: NIOSSLCertificate) throws -> Pin {
            Pin(kind: .certificate, sha256: Data(SHA256.hash(data: try certificate.toDERBytes())))
        }

        private static func decode(_ base64: String) -> Data {
            var text = base64.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("sha256/") { text.removeFirst("sha256/".count) }
            return Data(base64Encoded: text) ?? Data()
        }

        /// Whether `certificate` matches this pin.
        func matches(_ certificate: NIOSSLCertificate) -> Bool {
            switch kind {
            case .spki: return (try? Pin.spki(of: certificate))?.sha256 == sha256
            case .certificate: return (try? Pin.certificate(of: certificate))?.sha256 == sha256
            }
        }

        public var description: String { "\(kind == .spki ? "spki" : "certificate")/sha256/\(sha256.base64EncodedString())" }
    }

    /// Pins per host name (compared case-insensitively, a trailing dot ignored).
    public var pins: [String: [Pin]]
    /// Hosts never pinned, even if they have pins (seed 004's `urlsExcludedFromPinning`).
    public var excludedHosts: Set<String>

    /// Creates a pinning policy.
    public init(pins: [String: [Pin]], excludedHosts: Set<String> = []) {
        self.pins = Dictionary(pins.map { (Self.normalise($0.key), $0.value) }, uniquingKeysWith: +)
        self.excludedHosts = Set(excludedHosts.map(Self.normalise))
    }

    /// The pins for `host`, or `nil` when it is not pinned.
    public func pins(for host: String) -> [Pin]? {
        let host = Self.normalise(host)
        guard !excludedHosts.contains(host), let pins = pins[host], !pins.isEmpty else { return nil }
        return pins
    }
}

extension CertificatePinning {
    /// `API.Example.com.` and `api.example.com` are one host: lowercased, one trailing dot
    /// removed, so neither spelling can slip past a pin.
    static func normalise(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

/// A server presented a certificate that matches none of its host's pins. The request was not
/// sent.
public struct CertificatePinningError: Error, Sendable, CustomStringConvertible {
    /// The host.
    public var host: String
    /// The pins the host should have matched.
    public var expected: [CertificatePinning.Pin]
    /// The SPKI pin of what the server presented (nil when it presented nothing usable).
    public var received: CertificatePinning.Pin?
    /// Why, when it was not a mismatch (no TLS, no certificate).
    public var reason: String?

    public var description: String {
        if let reason { return "certificate pinning failed for \(host): \(reason)" }
        return "certificate pinning failed for \(host): the server's key \(received?.description ?? "?") matches none of "
            + expected.map(\.description).joined(separator: ", ")
    }
}
