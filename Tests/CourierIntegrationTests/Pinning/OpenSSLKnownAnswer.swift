import NIOSSL

/// A known-answer fixture for pin computation: a self-signed P-256 certificate generated
/// offline with openssl, and the two pins openssl computes for it. It proves Courier's pins are
/// the ones `openssl` (and server operators) compute; the servers in tests use certificates
/// generated at run time (`TestCertificateAuthority`).
enum OpenSSLKnownAnswer {
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
    /// `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    static let spkiPin = "btaQPmsrSFwJoauFgTBpv1na7Y8IO6Uie6VOeXDVuC0="
    /// `openssl x509 -outform der | openssl dgst -sha256 -binary | base64`
    static let certificatePin = "OqDk788Z2Ovde4O0STPsUPsLSvfCX8Jj0dsnOVIIiSY="

    static var certificate: NIOSSLCertificate { try! NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem) }
}
