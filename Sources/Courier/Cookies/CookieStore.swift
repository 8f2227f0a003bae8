import Foundation

/// The state of a ``CookieJar``: RFC 6265's storage model (§5.3) and retrieval (§5.4) over
/// cookies grouped by site, with the jar's limits. A value type; the jar keeps it under a lock.
struct CookieStore: Sendable {
    /// What became of one `Set-Cookie`.
    enum Outcome: Equatable {
        /// Stored (new, or replacing the cookie with the same name, domain, path and host-only flag).
        case stored
        /// An expiry in the past removed the cookie of that name, domain and path (if any).
        case removed
        /// Not stored, with the reason (for the log).
        case refused(String)
    }

    let limits: CookieJar.Limits
    let publicSuffixes: PublicSuffixList
    /// Cookies by site (a registrable domain or an IP address); each list in insertion order.
    private(set) var sites: [String: [Cookie]] = [:]
    private(set) var count = 0
    /// Bumped whenever the set of cookies changes (not when one is merely sent), so a jar with
    /// a file writes only when something changed.
    private(set) var revision = 0

    init(limits: CookieJar.Limits, publicSuffixes: PublicSuffixList) {
        self.limits = limits
        self.publicSuffixes = publicSuffixes
    }

    // MARK: - Storing (§5.3)

    /// Applies one parsed `Set-Cookie` received from `url`.
    mutating func receive(_ received: SetCookie, from url: CookieRequestURL, now: Date) -> Outcome {
        guard received.name.utf8.count + received.value.utf8.count <= limits.maxCookieBytes else {
            return .refused("larger than \(limits.maxCookieBytes) bytes")
        }
        // Expiry: Max-Age wins over Expires; both are cut to the longest lifetime.
        var expiresAt: Date?
        let latest = now.addingTimeInterval(limits.maxLifetimeSeconds)
        if let maxAge = received.maxAge {
            expiresAt = maxAge <= 0 ? .distantPast : (Double(maxAge) >= limits.maxLifetimeSeconds ? latest : now.addingTimeInterval(Double(maxAge)))
        } else if let expires = received.expires {
            expiresAt = min(expires, latest)
        }
        // Domain: never a public suffix (unless it is the host itself), never a domain the host
        // is not in, never above the host's registrable domain; an IP address gets host-only
        // cookies only.
        var domain = url.host
        var isHostOnly = true
        if let attribute = received.domain, attribute != url.host {
            if publicSuffixes.isPublicSuffix(attribute) { return .refused("Domain=\(attribute) is a public suffix") }
            guard url.domainMatches(attribute) else { return .refused("Domain=\(attribute) does not contain the host \(url.host)") }
            // Above the host's site: `amazonaws.com` from `bucket.s3.amazonaws.com` is no public
            // suffix itself, but a cookie for it reaches every bucket (as for a hosting domain
            // whose subdomains are suffixes only by a wildcard rule). Browsers refuse a Domain
            // outside the host's registrable domain (Chromium compares the two registrable
            // domains); RFC 6265's public-suffix check alone lets such a cookie through.
            guard let site = publicSuffixes.registrableDomain(of: url.host), CookieRequestURL.domain(attribute, matches: site) else {
                return .refused("Domain=\(attribute) is above the host's registrable domain")
            }
            domain = attribute
            isHostOnly = false
        } else if received.domain != nil, !url.isIPAddress, !publicSuffixes.isPublicSuffix(url.host) {
            isHostOnly = false   // Domain equal to the host: a domain cookie for the host and its subdomains
        }
        let path = received.path ?? url.defaultPath
        if received.isSecure && !url.isSecure { return .refused("Secure cookie set over an insecure connection") }
        if let refusal = Self.prefixRefusal(name: received.name, isSecure: received.isSecure,
                                            hostOnlyWithoutDomain: isHostOnly && received.domain == nil,
                                            rootPath: received.path == "/") {
            return .refused(refusal)
        }
        let key = siteKey(for: domain)
        var site = sites[key] ?? []
        // A connection that is not secure may not replace or shadow a Secure cookie (RFC 6265bis §5.7 step 16).
        if !url.isSecure, site.contains(where: { existing in
            existing.isSecure && existing.name == received.name
                && (CookieRequestURL.domain(existing.domain, matches: domain) || CookieRequestURL.domain(domain, matches: existing.domain))
                && CookieRequestURL.path(path, matches: existing.path)
        }) {
            return .refused("it would replace a Secure cookie over an insecure connection")
        }
        var cookie = Cookie(name: received.name, value: received.value, domain: domain, isHostOnly: isHostOnly, path: path,
                            isSecure: received.isSecure, isHTTPOnly: received.isHTTPOnly, sameSite: received.sameSite,
                            expiresAt: expiresAt, createdAt: now)
        var replaced = false
        if let index = site.firstIndex(where: { $0.hasSameIdentity(as: cookie) }) {
            cookie.createdAt = site[index].createdAt
            site.remove(at: index)
            count -= 1
            replaced = true
        }
        if cookie.isExpired(at: now) {
            update(site, at: key)
            if replaced { revision += 1 }
            return .removed
        }
        site.append(cookie)
        count += 1
        update(site, at: key)
        revision += 1
        enforceLimits(site: key, now: now)
        return .stored
    }

    /// Adds a cookie read back from a file, after checking it as if a server had sent it.
    mutating func restore(_ cookie: Cookie, now: Date) -> Bool {
        guard !cookie.name.isEmpty, cookie.name.utf8.count + cookie.value.utf8.count <= limits.maxCookieBytes,
              !cookie.domain.isEmpty, cookie.path.hasPrefix("/"), !cookie.isExpired(at: now),
              cookie.isHostOnly || !publicSuffixes.isPublicSuffix(cookie.domain),
              Self.prefixRefusal(name: cookie.name, isSecure: cookie.isSecure, hostOnlyWithoutDomain: cookie.isHostOnly,
                                 rootPath: cookie.path == "/") == nil,
              !(cookie.name + cookie.value + cookie.domain + cookie.path).utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F })
        else { return false }
        var cookie = cookie
        if let expiresAt = cookie.expiresAt { cookie.expiresAt = min(expiresAt, now.addingTimeInterval(limits.maxLifetimeSeconds)) }
        let key = siteKey(for: cookie.domain)
        var site = sites[key] ?? []
        if let index = site.firstIndex(where: { $0.hasSameIdentity(as: cookie) }) {
            site.remove(at: index)
            count -= 1
        }
        site.append(cookie)
        count += 1
        update(site, at: key)
        revision += 1
        enforceLimits(site: key, now: now)
        return true
    }

    /// Why a cookie's name prefix refuses it, or `nil` (RFC 6265bis §5.7): `__Secure-` needs
    /// `Secure`; `__Host-` needs `Secure`, no `Domain` attribute (host-only) and `Path=/` written
    /// out. The prefixes match in any case, as in current browsers: a server that reads cookie
    /// names case-insensitively would otherwise take `__HOST-sid`, set over plain http, for its
    /// `__Host-sid`.
    static func prefixRefusal(name: String, isSecure: Bool, hostOnlyWithoutDomain: Bool, rootPath: Bool) -> String? {
        if hasPrefix(name, "__secure-"), !isSecure { return "__Secure- cookie without Secure" }
        if hasPrefix(name, "__host-"), !(isSecure && hostOnlyWithoutDomain && rootPath) {
            return "__Host- cookie must be Secure, have no Domain and have Path=/"
        }
        return nil
    }

    /// Whether `name` starts with the lowercase ASCII `prefix`, in any case.
    private static func hasPrefix(_ name: String, _ prefix: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        var bytes = name.utf8.makeIterator()
        for byte in expected {
            guard let next = bytes.next() else { return false }
            let folded = (0x41...0x5A).contains(next) ? next | 0x20 : next
            guard folded == byte else { return false }
        }
        return true
    }

    // MARK: - Sending (§5.4)

    /// The cookies a request to `url` carries, longest path first, then oldest first; their
    /// last-access time becomes `now` when `touching`. Expired cookies of the site are dropped.
    mutating func cookies(for url: CookieRequestURL, now: Date, touching: Bool) -> [Cookie] {
        let key = siteKey(for: url.host)
        guard var site = sites[key] else { return [] }
        let before = site.count
        site.removeAll { $0.isExpired(at: now) }
        if site.count != before { count -= before - site.count; revision += 1 }
        var matches: [Cookie] = []
        for index in site.indices {
            let cookie = site[index]
            guard cookie.isHostOnly ? url.host == cookie.domain : url.domainMatches(cookie.domain),
                  url.pathMatches(cookie.path), !cookie.isSecure || url.isSecure else { continue }
            if touching { site[index].lastAccessedAt = now }
            matches.append(site[index])
        }
        update(site, at: key)
        matches.sort { $0.path.utf8.count != $1.path.utf8.count ? $0.path.utf8.count > $1.path.utf8.count : $0.createdAt < $1.createdAt }
        return matches
    }

    /// Every cookie that has not expired at `now`.
    func all(at now: Date) -> [Cookie] {
        sites.values.joined().filter { !$0.isExpired(at: now) }
    }

    // MARK: - Clearing

    mutating func removeAll() {
        guard count > 0 else { return }
        sites = [:]
        count = 0
        revision += 1
    }

    /// Removes the cookies of `domain` and of its subdomains.
    mutating func remove(domain: String) {
        let domain = Self.canonical(domain)
        for (key, site) in sites {
            let kept = site.filter { !CookieRequestURL.domain($0.domain, matches: domain) }
            guard kept.count != site.count else { continue }
            count -= site.count - kept.count
            update(kept, at: key)
            revision += 1
        }
    }

    // MARK: - Limits

    private mutating func enforceLimits(site key: String, now: Date) {
        if var site = sites[key], site.count > limits.maxCookiesPerSite {
            let before = site.count
            site.removeAll { $0.isExpired(at: now) }
            while site.count > limits.maxCookiesPerSite, let oldest = site.indices.min(by: { site[$0].lastAccessedAt < site[$1].lastAccessedAt }) {
                site.remove(at: oldest)
            }
            count -= before - site.count
            update(site, at: key)
        }
        guard count > limits.maxCookies else { return }
        for (key, site) in sites {
            let kept = site.filter { !$0.isExpired(at: now) }
            if kept.count != site.count { count -= site.count - kept.count; update(kept, at: key) }
        }
        while count > limits.maxCookies {
            var oldest: (key: String, index: Int, time: Date)?
            for (key, site) in sites {
                for index in site.indices where oldest == nil || site[index].lastAccessedAt < oldest!.time {
                    oldest = (key, index, site[index].lastAccessedAt)
                }
            }
            guard let oldest, var site = sites[oldest.key] else { break }
            site.remove(at: oldest.index)
            count -= 1
            update(site, at: oldest.key)
        }
    }

    // MARK: - Helpers

    private mutating func update(_ site: [Cookie], at key: String) {
        sites[key] = site.isEmpty ? nil : site
    }

    /// The site a domain's cookies are grouped under: its registrable domain, or the domain
    /// itself for IP addresses and public suffixes (`localhost`).
    private func siteKey(for domain: String) -> String {
        if CookieRequestURL.isIPAddress(domain) { return domain }
        return publicSuffixes.registrableDomain(of: domain) ?? domain
    }

    static func canonical(_ domain: String) -> String {
        var domain = domain.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        if domain.hasSuffix(".") { domain.removeLast() }
        if domain.hasPrefix("["), domain.hasSuffix("]") { domain = String(domain.dropFirst().dropLast()) }
        return domain
    }
}
