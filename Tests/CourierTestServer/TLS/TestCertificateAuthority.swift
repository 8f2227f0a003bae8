import Crypto
import Foundation
import NIOSSL
import X509

/// A throwaway certificate authority generated at run time (swift-certificates, P-256), and
/// the leaf certificates tests need from it: valid, expired, and for the wrong host name.
///
/// Nothing is stored on disk and nothing expires between runs: each authority is made fresh,
/// so a client trusts it only when a test says so (`trustRoots = .certificates([authority.certificate])`).
///
/// ```swift
/// let authority = try TestCertificateAuthority()
/// let server = try await FaultServer.start(tls: .init(try authority.validLeaf()))
/// var tls = TLSConfiguration.makeClientConfiguration()
/// tls.trustRoots = .certificates([authority.certificate])
/// ```
public struct TestCertificateAuthority: Sendable {
    /// The authority's self-signed root certificate, for a client's trust roots.
    public let certificate: NIOSSLCertificate
    /// The root certificate, DER-encoded.
    public let der: [UInt8]
    private let name: DistinguishedName
    private let key: P256.Signing.PrivateKey

    /// Generates a new key and a root certificate valid from an hour ago for a day.
    public init(commonName: String = "Courier Test CA") throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("Courier tests")
            CommonName(commonName)
        }
        let now = Date()
        let root = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        let document = try root.serializeAsPEM()
        self.der = document.derBytes
        self.certificate = try NIOSSLCertificate(bytes: document.derBytes, format: .der)
        self.name = name
        self.key = key
    }

    /// Issues a leaf (server) certificate for `dnsNames` and IPv4 `ipAddresses`, valid between
    /// the two dates, with a fresh P-256 key.
    public func issue(dnsNames: [String], ipAddresses: [String] = [], notValidBefore: Date, notValidAfter: Date) throws -> TestCertificate {
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(leafKey.publicKey),
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            issuer: name,
            subject: try DistinguishedName { CommonName(dnsNames.first ?? ipAddresses.first ?? "leaf") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try .serverLeaf(dnsNames: dnsNames, ipAddresses: ipAddresses),
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        return try TestCertificate(certificate: leaf, key: leafKey)
    }

    /// A leaf for `localhost` and `127.0.0.1`, valid from an hour ago for a day.
    public func validLeaf() throws -> TestCertificate {
        let now = Date()
        return try issue(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"],
                         notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400))
    }

    /// A leaf for `localhost` and `127.0.0.1` that expired yesterday.
    public func expiredLeaf() throws -> TestCertificate {
        let now = Date()
        return try issue(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"],
                         notValidBefore: now.addingTimeInterval(-3 * 86_400), notValidAfter: now.addingTimeInterval(-86_400))
    }

    /// A valid leaf for `wrong.example` only: it names neither `localhost` nor `127.0.0.1`.
    public func wrongHostLeaf() throws -> TestCertificate {
        let now = Date()
        return try issue(dnsNames: ["wrong.example"],
                         notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400))
    }
}
