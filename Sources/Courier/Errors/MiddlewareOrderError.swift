/// A middleware list in an order that would share one user's responses with another: a
/// ``CachingMiddleware`` or ``CoalescingMiddleware`` above (before) any middleware that adds a
/// signed-in user's credentials — an ``AuthenticationMiddleware`` with a ``TokenProvider``, or a
/// ``BaseParametersMiddleware`` with ``BaseParametersMiddleware/Scope/credentials``, whether it
/// puts them in headers, the query or the body.
///
/// Above it, the cache and the coalescer see requests before those credentials are added, so
/// the requests of two users look the same: one user's stored or in-flight response would
/// answer the other's. One credentials layer above the cache does not make up for another
/// below it (a session header above, a bearer token below: two users with the same header
/// would share). Every request of such a client fails with this error (as the underlying
/// error of an ``APIError`` of kind ``APIError/Kind/encodingFailed``), so the order is fixed
/// before it ships. Put them after every credentials layer:
///
/// ```swift
/// middleware: [RetryMiddleware(), AuthenticationMiddleware(.bearer(tokens)), CoalescingMiddleware(), CachingMiddleware()]
/// ```
///
/// Credentials that are the same for every user (an app-wide API key, fixed credentials of an
/// ``AuthenticationMiddleware``) are not counted, nor is a ``CoalescingMiddleware`` that joins
/// only the requests that ask.
public struct MiddlewareOrderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The middleware that is too high: `CachingMiddleware` or `CoalescingMiddleware`.
    public var middleware: String
    /// Its position in the client's middleware list.
    public var position: Int
    /// The first middleware below it that adds a user's credentials, and its position.
    public var credentialsMiddleware: String, credentialsPosition: Int

    /// What is wrong and how to fix it.
    public var description: String {
        "\(middleware) (middleware[\(position)]) is above \(credentialsMiddleware) (middleware[\(credentialsPosition)]), which adds a signed-in user's credentials: it would see requests before they are added and give one user's responses to another; put it after \(credentialsMiddleware)"
    }

    /// The first sharing middleware in `middleware` with a middleware below it that adds a
    /// signed-in user's credentials, naming the first such middleware below it.
    static func check(_ middleware: [any Middleware]) -> MiddlewareOrderError? {
        // Read from the middleware's declared roles (``MiddlewareRole``), named by their types.
        let roles = middleware.map(\.declaredRole)
        for (index, role) in roles.enumerated() where role.sharesResponses {
            // Any credentials layer below counts, whatever sits above: what it adds is what
            // tells this user's requests from another's, and this middleware never sees it.
            guard let below = roles[(index + 1)...].firstIndex(where: \.addsUserCredentials) else { continue }
            return MiddlewareOrderError(middleware: Self.name(of: middleware[index]), position: index,
                                        credentialsMiddleware: Self.name(of: middleware[below]), credentialsPosition: below)
        }
        return nil
    }

    /// `CachingMiddleware` for a `CachingMiddleware`: the type's name without its module.
    private static func name(of layer: any Middleware) -> String {
        String(describing: type(of: layer))
    }
}
