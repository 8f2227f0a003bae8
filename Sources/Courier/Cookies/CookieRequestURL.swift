import Foundation
import HTTPTypes

/// The parts of a request URL the cookie rules read (RFC 6265 §5.1.2–§5.1.4, §5.4): the
/// canonical host, the path without its query, and whether the channel counts as secure.
struct CookieRequestURL: Sendable, Equatable {
    /// Lowercased, without a trailing dot; an IPv6 address without brackets.
    var host: String
    /// The path, `/` when empty, without query or fragment.
    var path: String
    /// `https`, or `http` to a loopback host (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`),
    /// which browsers also treat as secure.
    var isSecure: Bool
    /// Whether ``host`` is an IPv4 or IPv6 address (such hosts only get host-only cookies).
    var isIPAddress: Bool

    init?(scheme: String?, authority: String?, path: String?) {
        guard let scheme = scheme?.lowercased(), scheme == "http" || scheme == "https",
              let authority, let host = Self.host(ofAuthority: authority), !host.isEmpty else { return nil }
        self.host = host
        var path = Substring(path ?? "/")
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        self.path = path.isEmpty ? "/" : String(path)
        self.isIPAddress = Self.isIPAddress(host)
        self.isSecure = scheme == "https" || Self.isLoopback(host)
    }

    init?(_ request: HTTPRequest) {
        self.init(scheme: request.scheme, authority: request.authority, path: request.path)
    }

    init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        var authority = components.percentEncodedHost ?? ""
        if authority.contains(":"), !authority.hasPrefix("[") { authority = "[" + authority + "]" }
        self.init(scheme: components.scheme, authority: authority, path: components.percentEncodedPath)
    }

    /// The host of `host`, `host:port`, `[v6]` or `[v6]:port`, canonicalised.
    static func host(ofAuthority authority: String) -> String? {
        var host = Substring(authority)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        var canonical = host.lowercased()
        if canonical.hasSuffix(".") { canonical.removeLast() }
        return canonical
    }

    /// Dotted-decimal IPv4 or anything with a colon (IPv6).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// `localhost`, `*.localhost`, `127.0.0.0/8` and `::1`.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost") || host == "::1"
            || (host.hasPrefix("127.") && isIPAddress(host))
    }

    /// RFC 6265 §5.1.3: the host is the domain, or ends with `.` + domain and is not an IP address.
    func domainMatches(_ domain: String) -> Bool {
        host == domain || (!isIPAddress && Self.domain(host, matches: domain))
    }

    /// RFC 6265 §5.1.4: the request path equals the cookie path, or the cookie path is a prefix
    /// ending in `/`, or a prefix followed by `/` in the request path.
    func pathMatches(_ cookiePath: String) -> Bool {
        Self.path(path, matches: cookiePath)
    }

    /// Whether `host` is `domain` or a subdomain of it (the string rule of §5.1.3, without the
    /// IP-address check).
    static func domain(_ host: String, matches domain: String) -> Bool {
        if host == domain { return true }
        guard host.utf8.count > domain.utf8.count, host.utf8.suffix(domain.utf8.count).elementsEqual(domain.utf8) else { return false }
        return host.utf8.dropLast(domain.utf8.count).last == UInt8(ascii: ".")
    }

    /// §5.1.4's path-match of a request path and a cookie path.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        return cookiePath.utf8.last == UInt8(ascii: "/") || requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// RFC 6265 §5.1.4's default path: the request path up to, not including, its last `/`; `/`
    /// when that leaves nothing.
    var defaultPath: String {
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else { return "/" }
        return String(path[..<lastSlash])
    }
}

