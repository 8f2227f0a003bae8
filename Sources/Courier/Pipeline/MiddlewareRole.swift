/// What a middleware tells the client that holds it, read once when the client is created.
///
/// The client never names middleware types: a middleware whose presence changes how the client
/// treats every request says so here, and the client reads only the roles. Courier's own
/// middleware adopt ``RoleDeclaringMiddleware``; any other middleware has no role.
package struct MiddlewareRole: Sendable {
    /// Query parameter names whose values this middleware adds and which are secret (an API key
    /// in the query, fixed credentials): the client adds them to
    /// ``APIConfiguration/sensitiveQueryNames``, so errors, logs and cache keys above the
    /// middleware redact them.
    package var secretQueryNames: Set<String> = []
    /// Whether it adds a signed-in user's credentials (tokens, session parameters): a middleware
    /// that shares responses must not sit above it (``MiddlewareOrderError``).
    package var addsUserCredentials = false
    /// Whether it gives one request's response to other requests (a cache, a coalescer that
    /// joins every eligible request): see ``MiddlewareOrderError``.
    package var sharesResponses = false
    /// Whether it marks responses with the `Courier-Cache` field that the client reads for
    /// ``ResponseMetrics/cacheOutcome`` (only then is the field looked up).
    package var reportsCacheOutcome = false

    /// A role with nothing declared.
    package init(secretQueryNames: Set<String> = [], addsUserCredentials: Bool = false, sharesResponses: Bool = false,
                 reportsCacheOutcome: Bool = false) {
        self.secretQueryNames = secretQueryNames
        self.addsUserCredentials = addsUserCredentials
        self.sharesResponses = sharesResponses
        self.reportsCacheOutcome = reportsCacheOutcome
    }
}

/// A middleware that declares its ``MiddlewareRole`` to the client.
package protocol RoleDeclaringMiddleware: Middleware {
    /// What the client must know of this middleware.
    var role: MiddlewareRole { get }
}

extension Middleware {
    /// This middleware's role: the declared one, or none.
    package var declaredRole: MiddlewareRole {
        (self as? any RoleDeclaringMiddleware)?.role ?? MiddlewareRole()
    }
}
