import Courier
import AsyncHTTPClient

/// Whether an AsyncHTTPClient client follows redirects by itself — which would take redirects
/// out of Courier's hands: credentials would cross origins and `https` could be downgraded.
///
/// AsyncHTTPClient keeps a client's configuration, and the mode inside its public
/// `RedirectConfiguration`, internal; no API reads them. Reflection is the one way to refuse such
/// a client before a request is sent, so this is written by hand. Should a later AsyncHTTPClient
/// rename the stored properties, the answer is `nil` ("unknown"), and the transport still refuses
/// every response that AsyncHTTPClient reached by following a redirect (its `history`).
enum ClientRedirectMode {
    /// `true` when `configuration` follows redirects, `false` when it does not, `nil` when unknown.
    static func follows(_ configuration: HTTPClient.Configuration) -> Bool? {
        follows(redirectConfiguration: configuration.redirectConfiguration)
    }

    /// `true` when `client` follows redirects, `false` when it does not, `nil` when unknown.
    static func follows(_ client: HTTPClient) -> Bool? {
        configuration(of: client).flatMap(follows)
    }

    /// The configuration `client` was created with, when reflection finds it.
    static func configuration(of client: HTTPClient) -> HTTPClient.Configuration? {
        Mirror(reflecting: client).children.first { $0.label == "configuration" }?.value as? HTTPClient.Configuration
    }

    private static func follows(redirectConfiguration: HTTPClient.Configuration.RedirectConfiguration) -> Bool? {
        guard let mode = Mirror(reflecting: redirectConfiguration).children.first(where: { $0.label == "mode" })?.value else { return nil }
        let name = String(describing: mode)
        if name == "disallow" { return false }
        if name.hasPrefix("follow") { return true }
        return nil
    }

    /// The error for a client that follows redirects itself.
    static let refusal = TransportError(
        .invalidRequest,
        "the HTTPClient follows redirects itself, so credentials could cross origins; create it with AsyncHTTPClientTransport.recommendedConfiguration() or redirectConfiguration: .disallow (Courier follows redirects with its own rules)",
        requestMayHaveBeenSent: false)
}
