import Crypto
public import Foundation
public import NIOSSL

/// Which server keys or certificates are trusted, per host, on top of normal chain and
/// hostname validation (which still apply).
///
/// Pins are SHA-256 hashes, base64-encoded, as OkHttp and curl write them: of a DER
/// SubjectPublicKeyInfo (`spki`, survives certificate renewal with the same key), or of a whole
/// DER certificate (`certificate`). A host with pins must match one of them; a host without
/// pins, or listed in `excludedHosts`, is not pinned.
///
/// What a pin may name (``PinningAsyncHTTPClientTransport`` checks it):
/// - **the leaf** the server presents;
/// - **a trust anchor** (a root CA) that the transport's `TLSConfiguration` names: its
///   `trustRoots` (`.certificates`, `.file`, or the system bundle for `.default`) or
///   `additionalTrustRoots`. The host is then trusted *only* through the pinned anchors: BoringSSL
///   verifies the chain, intermediates included, and a chain that ends at another root fails the
///   handshake with a ``CertificatePinningError``. (A leaf pin of the same host then adds nothing:
///   the pinned anchor decides.)
/// - An intermediate cannot be pinned: NIOSSL does not expose the chain a server presents to
///   AsyncHTTPClient. Such a pin never matches, so the host fails closed, with an error that says so.
///
/// Host keys are names (compared case-insensitively, a trailing dot ignored) or OkHttp's
/// wildcards: `*.example.com` matches one label (`api.example.com`, not `example.com` nor
/// `a.b.example.com`), `**.example.com` any number (`example.com`, `a.b.example.com`). A host
/// gets the pins of every key that matches it. A wildcard never matches an IP address. A key
/// with `*` anywhere else is invalid: the transport refuses every request until it is fixed
/// (see ``invalidPatterns``), rather than pinning nothing.
///
/// ```swift
/// let pinning = CertificatePinning(
///     pins: ["api.example.com": [.spki("btaQPmsrSFwJoauFgTBpv1na7Y8IO6Uie6VOeXDVuC0="),
///                                .spki("<backup key's pin>")],
///            "**.cdn.example.com": [.spki("<the CDN's root CA key>")]],
///     excludedHosts: ["static.example.com"])
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

    /// Pins per host name or wildcard pattern (compared case-insensitively, a trailing dot ignored).
    public var pins: [String: [Pin]]
    /// Hosts never pinned, even if they have pins. Host names only: Snowdrop's
    /// `urlsExcludedFromPinning` excludes URLs, but pinning is per connection, so one host is
    /// pinned or not for all its paths. A URL here is refused (``invalidPatterns``).
    public var excludedHosts: Set<String>

    /// Creates a pinning policy.
    public init(pins: [String: [Pin]], excludedHosts: Set<String> = []) {
        self.pins = Dictionary(pins.map { (Self.normalise($0.key), $0.value) }, uniquingKeysWith: +)
        self.excludedHosts = Set(excludedHosts.map(Self.normalise))
    }

    /// The pins for `host` (those of its own key and of every wildcard key that matches it), or
    /// `nil` when it is not pinned.
    public func pins(for host: String) -> [Pin]? {
        let host = Self.normalise(host)
        guard !excludedHosts.contains(host) else { return nil }
        var found = pins[host] ?? []
        for (pattern, patternPins) in pins where pattern.hasPrefix("*") && Self.matches(pattern: pattern, host: host) {
            found += patternPins
        }
        return found.isEmpty ? nil : found
    }

    /// Entries that would pin nothing, so the transport refuses requests while there are any:
    /// keys of ``pins`` that are not a host name, an IP address, `*.name` or `**.name` (a URL,
    /// `host:port`), keys with a pin that is not a base64 SHA-256 hash (32 bytes), and
    /// ``excludedHosts`` entries that are not host names.
    public var invalidPatterns: [String] {
        let keys = pins.filter { key, pins in
            !Self.isValid(pattern: key) || pins.contains { $0.sha256.count != 32 }
        }.keys
        let exclusions = excludedHosts.filter { !Self.isValid(pattern: $0) || $0.hasPrefix("*") }
        return (Array(keys) + exclusions).sorted()
    }
}

extension CertificatePinning {
    /// Whether `pattern` (normalised) applies to `host` (normalised), with OkHttp's rules.
    static func matches(pattern: String, host: String) -> Bool {
        if pattern == host { return true }
        guard !isIPAddress(host) else { return false }
        if pattern.hasPrefix("**.") {
            let suffix = pattern.dropFirst(3)
            return host == suffix || host.hasSuffix("." + suffix)
        }
        if pattern.hasPrefix("*.") {
            let suffix = pattern.dropFirst(2)
            guard host.hasSuffix("." + suffix) else { return false }
            let label = host.dropLast(suffix.count + 1)
            return !label.isEmpty && !label.contains(".")
        }
        return false
    }

    /// A host name (ASCII letters, digits, `-`, `_`, dots between labels; an internationalised
    /// name in its `xn--` form, as TLS sees it), an IP address, or `*.` / `**.` followed by a
    /// host name: no scheme, port, path or other `*`, no empty label.
    static func isValid(pattern: String) -> Bool {
        if isIPv6Address(pattern) { return true }
        var name = Substring(pattern)
        if name.hasPrefix("**.") { name = name.dropFirst(3) } else if name.hasPrefix("*.") { name = name.dropFirst(2) }
        let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == ".") }
        return !name.isEmpty && allowed && !name.hasPrefix(".") && !name.contains("..")
    }

    /// `::1`, `fe80::1`: hexadecimal digits and colons, at least two colons.
    private static func isIPv6Address(_ text: String) -> Bool {
        text.filter { $0 == ":" }.count >= 2 && text.allSatisfy { $0 == ":" || $0 == "." || $0.isHexDigit }
    }

    /// `127.0.0.1` or `::1` (wildcards are for names, never addresses).
    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") })
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
            + " (pins may name the leaf or a trust anchor of the transport's TLS configuration; an intermediate cannot be checked)"
    }
}
