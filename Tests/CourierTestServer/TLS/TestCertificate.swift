import Crypto
import Foundation
import NIOSSL
import X509

/// A certificate and its private key, generated at run time for tests (see
/// ``TestCertificateAuthority``), in the forms servers and clients need.
///
/// ```swift
/// let authority = try TestCertificateAuthority()
/// let leaf = try authority.validLeaf()
/// let server = try await FaultServer.start(tls: .init(leaf))
/// // trust `authority.certificate`; pin `leaf.spkiPin`
/// ```
public struct TestCertificate: Sendable {
    /// The certificate, for NIOSSL.
    public let certificate: NIOSSLCertificate
    /// The certificate's private key (P-256), for NIOSSL.
    public let privateKey: NIOSSLPrivateKey
    /// The certificate, DER-encoded.
    public let der: [UInt8]
    /// The certificate, PEM-encoded.
    public let pem: String
    /// The DER SubjectPublicKeyInfo of the certificate's key (91 bytes for P-256).
    public let subjectPublicKeyInfo: [UInt8]

    /// Base64 SHA-256 of ``subjectPublicKeyInfo``: the SPKI pin, as
    /// `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    /// computes it.
    public var spkiPin: String { Data(SHA256.hash(data: subjectPublicKeyInfo)).base64EncodedString() }

    /// Base64 SHA-256 of ``der``: the whole-certificate pin.
    public var certificatePin: String { Data(SHA256.hash(data: der)).base64EncodedString() }

    /// Wraps a swift-certificates `Certificate` and the P-256 key it was issued for.
    init(certificate: Certificate, key: P256.Signing.PrivateKey) throws {
        let document = try certificate.serializeAsPEM()
        self.der = document.derBytes
        self.pem = document.pemString
        self.certificate = try NIOSSLCertificate(bytes: document.derBytes, format: .der)
        self.privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
        self.subjectPublicKeyInfo = Array(key.publicKey.derRepresentation)
    }

    /// A self-signed leaf for `localhost` and `127.0.0.1`, issued by no authority: a client
    /// that trusts only a ``TestCertificateAuthority`` (or the system roots) refuses it.
    public static func selfSigned(dnsNames: [String] = ["localhost"], ipAddresses: [String] = ["127.0.0.1"]) throws -> TestCertificate {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(dnsNames.first ?? "self-signed") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try .serverLeaf(dnsNames: dnsNames, ipAddresses: ipAddresses),
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        return try TestCertificate(certificate: certificate, key: key)
    }
}

extension Certificate.Extensions {
    /// The extensions of a TLS server leaf: not a CA, digital signature, server authentication,
    /// and the names it is valid for.
    static func serverLeaf(dnsNames: [String], ipAddresses: [String]) throws -> Certificate.Extensions {
        try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            try SubjectAlternativeNames.make(dnsNames: dnsNames, ipAddresses: ipAddresses)
        }
    }
}

extension SubjectAlternativeNames {
    /// DNS names and dotted-quad IPv4 addresses as subject alternative names.
    static func make(dnsNames: [String], ipAddresses: [String]) throws -> SubjectAlternativeNames {
        var names = dnsNames.map { GeneralName.dnsName($0) }
        for address in ipAddresses {
            let octets = address.split(separator: ".").compactMap { UInt8($0) }
            guard octets.count == 4 else { throw TestCertificateError.notAnIPv4Address(address) }
            names.append(.ipAddress(.init(contentBytes: octets[...])))
        }
        return SubjectAlternativeNames(names)
    }
}

/// A test certificate could not be made.
public enum TestCertificateError: Error, Sendable {
    /// Only dotted-quad IPv4 addresses are supported in subject alternative names.
    case notAnIPv4Address(String)
}
