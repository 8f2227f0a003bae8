import Foundation

/// A URL split into the parts requests are built from, after checking that Courier may send to it.
struct CheckedURL: Sendable, Hashable {
    var scheme: String
    /// `host` or `host:port` (the port only when it is not the scheme's default).
    var authority: String
    /// The host, lowercased, without a trailing dot (for origin comparisons).
    var host: String
    var port: Int
    /// The percent-encoded path, as in the URL.
    var path: String
    /// The percent-encoded query, if any.
    var query: String?

    /// Parses and checks a URL: http or https, a host, a port in 1…65535, no `user:password`.
    init(_ url: URL) throws {
        try self.init(string: url.absoluteString)
    }

    init(string: String) throws {
        guard let components = URLComponents(string: string) else {
            // Textually: a string URLComponents cannot parse may still hold `user:password@`.
            throw APIError.invalidURL(Redaction.redactURL(string), reason: "it is not a valid URL")
        }
        let redacted = CheckedURL.redactedString(components) ?? string
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw APIError.invalidURL(redacted, reason: "only http and https URLs are supported")
        }
        guard components.user == nil, components.password == nil else {
            throw APIError.invalidURL(redacted, reason: "credentials in the URL (user:password@) are not allowed; use authentication middleware")
        }
        guard var host = components.percentEncodedHost, !host.isEmpty else {
            throw APIError.invalidURL(redacted, reason: "the URL has no host")
        }
        if host.contains("%") && !host.contains(":") {   // not an IPv6 literal (a zone ID: `fe80::1%25en0`)
            // `api%2Eexample.com` is `api.example.com` to the transports, which connect to the
            // decoded host: every check made on the host here (origin, pins, cookies) must see
            // that name too, or a pinned host written encoded would slip past its pins.
            guard let decoded = host.removingPercentEncoding, !decoded.isEmpty, decoded.utf8.allSatisfy(Self.isHostNameByte) else {
                throw APIError.invalidURL(redacted, reason: "its host is percent-encoded into characters a host name cannot have; write the host name itself (an internationalized one in its xn-- form)")
            }
            host = decoded
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = components.port ?? defaultPort
        guard (1...65535).contains(port) else {
            throw APIError.invalidURL(redacted, reason: "port \(port) is out of range 1–65535")
        }
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        self.scheme = scheme
        self.host = CheckedURL.normalise(host: host)
        self.port = port
        self.authority = port == defaultPort && components.port == nil ? host : "\(host):\(port)"
        self.path = components.percentEncodedPath
        self.query = components.percentEncodedQuery
    }

    /// The path without trailing `/`, for joining request paths to a base URL.
    var pathForJoining: String {
        var path = Substring(self.path)
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// A letter, digit, `-`, `.` or `_`: what a host name (or an IPv4 address) is made of.
    private static func isHostNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// Lowercased, trailing dot removed: `API.Example.com.` and `api.example.com` are one host.
    static func normalise(host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// Whether two endpoints are the same origin (scheme, host and port).
    func isSameOrigin(as other: CheckedURL) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }

    private static func redactedString(_ components: URLComponents) -> String? {
        var copy = components
        if copy.user != nil || copy.password != nil { copy.user = Redaction.placeholder; copy.password = nil }
        return copy.string
    }
}
