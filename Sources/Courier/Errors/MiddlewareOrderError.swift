/// A middleware list in an order that would share one user's responses with another: a
/// ``CachingMiddleware`` or ``CoalescingMiddleware`` above (before) the middleware that adds a
/// signed-in user's credentials — an ``AuthenticationMiddleware`` with a ``TokenProvider``, or a
/// ``BaseParametersMiddleware`` that adds ``BaseParametersMiddleware/Scope/credentials`` as
/// headers.
///
/// Above it, the cache and the coalescer see requests before those credentials are added, so
/// the requests of two users look the same: one user's stored or in-flight response would
/// answer the other's. Every request of such a client fails with this error (as the underlying
/// error of an ``APIError`` of kind ``APIError/Kind/encodingFailed``), so the order is fixed
/// before it ships. Put them after:
///
/// ```swift
/// middleware: [RetryMiddleware(), AuthenticationMiddleware(.bearer(tokens)), CoalescingMiddleware(), CachingMiddleware()]
/// ```
///
/// Credentials that are the same for every user (an app-wide API key, fixed credentials) are
/// not counted, nor is a ``CoalescingMiddleware`` that joins only the requests that ask.
public struct MiddlewareOrderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The middleware that is too high: `CachingMiddleware` or `CoalescingMiddleware`.
    public var middleware: String
    /// Its position in the client's middleware list.
    public var position: Int
    /// The middleware that adds the user's credentials below it, and its position.
    public var credentialsMiddleware: String, credentialsPosition: Int

    /// What is wrong and how to fix it.
    public var description: String {
        "\(middleware) (middleware[\(position)]) is above \(credentialsMiddleware) (middleware[\(credentialsPosition)]), which adds a signed-in user's credentials: it would see requests before they are added and give one user's responses to another; put it after \(credentialsMiddleware)"
    }

    /// The first sharing middleware in `middleware` that sees requests before a signed-in
    /// user's credentials are added (with no such middleware above it).
    static func check(_ middleware: [any Middleware]) -> MiddlewareOrderError? {
        func credentials(_ layer: any Middleware) -> String? {
            if let authentication = layer as? AuthenticationMiddleware, authentication.usesTokens { return "AuthenticationMiddleware" }
            if let parameters = layer as? BaseParametersMiddleware, parameters.addsCredentialHeaders { return "BaseParametersMiddleware" }
            return nil
        }
        guard let last = middleware.lastIndex(where: { credentials($0) != nil }), let name = credentials(middleware[last]) else { return nil }
        for index in middleware.indices where index < last {
            if credentials(middleware[index]) != nil { return nil }   // the credentials are on the requests from here on
            let sharing: String
            switch middleware[index] {
            case is CachingMiddleware: sharing = "CachingMiddleware"
            case let coalescing as CoalescingMiddleware where coalescing.joinsEveryEligibleRequest: sharing = "CoalescingMiddleware"
            default: continue
            }
            return MiddlewareOrderError(middleware: sharing, position: index, credentialsMiddleware: name, credentialsPosition: last)
        }
        return nil
    }
}
