/// What the cookie handling below the middleware tells a middleware that asked: the cookies
/// each hop of a request went out with, which no middleware sees (they are added at the wire).
///
/// A middleware adds one to ``RequestContext/cookieWatches`` before calling `next`.
/// ``CachingMiddleware`` keys a response by the cookies the client's ``CookieJar`` was going to
/// add; it stores the response only when the jar added exactly those (a login or a logout that
/// lands while the request is under way must not file one session's response under another's
/// key), and never when a transport added cookies from a store of its own (URLSession's
/// `HTTPCookieStorage`), which its key cannot tell apart.
package final class CookieWatch: Sendable {
    private struct Record: Sendable {
        var jarCookies: [String?] = []
        var transportStoreCookies = false
    }

    private let record = Locked(Record())

    package init() {}

    /// The `Cookie` value the client's jar added on each hop, in order (`nil`: none applied).
    package var jarCookies: [String?] { record.withLock { $0.jarCookies } }

    /// Whether a hop carried cookies a transport added from a store of its own.
    package var carriedTransportStoreCookies: Bool { record.withLock { $0.transportStoreCookies } }

    /// Called by ``CookieJarTransport`` for each hop, with what the jar added.
    func jarAdded(_ cookies: String?) {
        record.withLock { $0.jarCookies.append(cookies) }
    }

    /// Called by a transport that adds cookies from a store of its own (`URLSessionTransport`
    /// without a jar) when a hop goes out with some.
    package func transportAddedStoreCookies() {
        record.withLock { $0.transportStoreCookies = true }
    }
}
