/// A middleware list in an order that would share one user's responses with another: a
/// ``CachingMiddleware`` or ``CoalescingMiddleware`` above (before) an
/// ``AuthenticationMiddleware`` that adds a signed-in user's tokens (a ``TokenProvider``).
///
/// Above authentication, the cache and the coalescer see requests before their credentials are
/// added, so the requests of two users look the same: one user's stored or in-flight response
/// would answer the other's. Every request of such a client fails with this error (as the
/// underlying error of an ``APIError`` of kind ``APIError/Kind/encodingFailed``), so the order
/// is fixed before it ships. Put them after the authentication middleware:
///
/// ```swift
/// middleware: [RetryMiddleware(), AuthenticationMiddleware(.bearer(tokens)), CoalescingMiddleware(), CachingMiddleware()]
/// ```
public struct MiddlewareOrderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The middleware that is too high: `CachingMiddleware` or `CoalescingMiddleware`.
    public var middleware: String
    /// Its position in the client's middleware list, and the authentication middleware's.
    public var position: Int, authenticationPosition: Int

    /// What is wrong and how to fix it.
    public var description: String {
        "\(middleware) (middleware[\(position)]) is above AuthenticationMiddleware (middleware[\(authenticationPosition)]): it would see requests before their credentials are added and give one user's responses to another; put it after AuthenticationMiddleware"
    }

    /// The first sharing middleware in `middleware` that sees requests before a signed-in
    /// user's tokens are added: above an ``AuthenticationMiddleware`` that uses a
    /// ``TokenProvider``, with no such middleware above it. Authentication with an app-wide key
    /// or fixed credentials is the same for everyone and is not counted, nor is a
    /// ``CoalescingMiddleware`` that joins only the requests that ask for it.
    static func check(_ middleware: [any Middleware]) -> MiddlewareOrderError? {
        func usesTokens(_ layer: any Middleware) -> Bool { (layer as? AuthenticationMiddleware)?.usesTokens == true }
        guard let authentication = middleware.lastIndex(where: usesTokens) else { return nil }
        for index in middleware.indices where index < authentication {
            if usesTokens(middleware[index]) { return nil }   // the tokens are on the requests from here on
            switch middleware[index] {
            case is CachingMiddleware:
                return MiddlewareOrderError(middleware: "CachingMiddleware", position: index, authenticationPosition: authentication)
            case let coalescing as CoalescingMiddleware where coalescing.joinsEveryEligibleRequest:
                return MiddlewareOrderError(middleware: "CoalescingMiddleware", position: index, authenticationPosition: authentication)
            default:
                continue
            }
        }
        return nil
    }
}
