import Courier
import Foundation

extension APIClient {
    /// Creates a client for `baseURL` with sensible defaults: a `URLSessionTransport` (one
    /// long-lived session), the default configuration, and the given middleware.
    ///
    /// ```swift
    /// let client = APIClient(baseURL: URL(string: "https://api.example.com/v1")!) { configuration in
    ///     configuration.timeout = .seconds(15)
    ///     configuration.useSnakeCaseKeys()
    /// }
    /// ```
    public convenience init(
        baseURL: URL,
        middleware: [any Middleware] = [],
        configure: (inout APIConfiguration) -> Void = { _ in }
    ) {
        var configuration = APIConfiguration(baseURL: baseURL)
        configure(&configuration)
        self.init(configuration: configuration, transport: URLSessionTransport(), middleware: middleware)
    }
}
