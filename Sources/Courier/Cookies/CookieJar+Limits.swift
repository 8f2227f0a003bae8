import Foundation

extension CookieJar {
    /// How much a ``CookieJar`` holds, so a hostile or careless server cannot grow it without
    /// bound. The defaults are browsers' (RFC 6265bis §5.6 and §5.7; Chrome and Firefox):
    /// 4,096 bytes per cookie, 180 cookies per site, 3,000 in all, 400 days at most.
    public struct Limits: Sendable, Hashable {
        /// The most bytes of a cookie's name and value together; a larger cookie is ignored.
        /// Default 4,096.
        public var maxCookieBytes: Int
        /// The most cookies for one site — a registrable domain (`example.co.uk`, so that
        /// `a.example.co.uk` and `b.example.co.uk` share one allowance) or an IP address. When a
        /// new cookie goes over, expired cookies go first, then the least recently used. Default 180.
        public var maxCookiesPerSite: Int
        /// The most cookies in the jar; evicted as above, across all sites. Default 3,000.
        public var maxCookies: Int
        /// The longest a cookie may live: a larger `Max-Age` or a later `Expires` is cut to
        /// this (RFC 6265bis §5.6.1). Default 400 days.
        public var maxLifetime: Duration

        /// Creates limits; every argument has the browsers' default. Values below 1 are read as 1.
        public init(
            maxCookieBytes: Int = 4096, maxCookiesPerSite: Int = 180, maxCookies: Int = 3000,
            maxLifetime: Duration = .seconds(400 * 86_400)
        ) {
            self.maxCookieBytes = max(1, maxCookieBytes)
            self.maxCookiesPerSite = max(1, maxCookiesPerSite)
            self.maxCookies = max(1, maxCookies)
            self.maxLifetime = maxLifetime
        }

        /// ``maxLifetime`` in seconds, at least one.
        var maxLifetimeSeconds: TimeInterval { max(1, maxLifetime.secondsValue) }
    }
}
