import HTTPTypes

/// What the redirect follower tells a middleware that asked about the redirects under it: how
/// many were followed, and whether one left the origin of the request the middleware sent.
///
/// A middleware adds one to ``RequestContext/redirectWatches`` before calling `next`. The cache
/// stores nothing under the first URL for a response reached through a redirect;
/// ``AuthenticationMiddleware`` does not refresh its token for a `401` from another origin,
/// which never saw the token (the follower removed it). A watch may also prepare each hop
/// that stays on the origin (``prepareHop``): request signing signs every hop again, since
/// a signature covers one method, target and body. A watch may observe every hop too
/// (``observeHop``): tracing ends the span of the hop that was redirected and starts one for the
/// next, metrics record one measurement per hop, as OpenTelemetry asks for each request sent.
package final class RedirectWatch: Sendable {
    /// Called with each next hop's request while no redirect has left the origin, and whether
    /// the hop sends the body again (`false` after a 303, or a 301/302 that turned a POST into
    /// a GET); returns the request to send.
    package typealias HopPreparation = @Sendable (_ request: HTTPRequest, _ sendsBody: Bool) async throws -> HTTPRequest

    /// Called for every hop the follower sends after a redirect, whichever origin it goes to,
    /// with the redirect that asked for it and the hop's request (after ``prepareHop``); returns
    /// the request to send. Only fields that carry no secret may be added here (trace context):
    /// the hop may go to another origin.
    package typealias HopObserver = @Sendable (_ redirect: HTTPResponse, _ next: HTTPRequest) -> HTTPRequest

    private struct Record: Sendable {
        var count = 0
        var leftOrigin = false
    }

    private let record = Locked(Record())
    /// See ``HopPreparation``.
    package let prepareHop: HopPreparation?
    /// See ``HopObserver``.
    package let observeHop: HopObserver?

    package init(prepareHop: HopPreparation? = nil, observeHop: HopObserver? = nil) {
        self.prepareHop = prepareHop
        self.observeHop = observeHop
    }

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
