/// What the redirect follower tells a middleware that asked about the redirects under it: how
/// many were followed, and whether one left the origin of the request the middleware sent.
///
/// A middleware adds one to ``RequestContext/redirectWatches`` before calling `next`. The cache
/// stores nothing under the first URL for a response reached through a redirect;
/// ``AuthenticationMiddleware`` does not refresh its token for a `401` from another origin,
/// which never saw the token (the follower removed it).
package final class RedirectWatch: Sendable {
    private struct Record: Sendable {
        var count = 0
        var leftOrigin = false
    }

    private let record = Locked(Record())

    package init() {}

    /// The redirects followed so far.
    package var count: Int { record.current.count }

    /// Whether a redirect went to an origin other than the one before it: the final response
    /// then comes from a request without the first request's credentials.
    package var leftOrigin: Bool { record.current.leftOrigin }

    /// Called by the follower for each redirect it follows.
    func followed(leavingOrigin: Bool) {
        record.withLock {
            $0.count += 1
            if leavingOrigin { $0.leftOrigin = true }
        }
    }
}
