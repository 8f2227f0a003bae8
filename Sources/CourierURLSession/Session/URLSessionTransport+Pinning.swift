import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Certificate pins for a ``URLSessionTransport``: base64 SHA-256 digests of the DER
/// SubjectPublicKeyInfo, per host (the pins OkHttp and curl produce).
public struct URLSessionPinning: Sendable, Hashable {
    /// Pins per host name (lowercased, without a trailing dot).
    public var pins: [String: [String]]
    /// Hosts that are never pinned.
    public var excludedHosts: Set<String>

    /// Creates a pinning configuration.
    public init(pins: [String: [String]], excludedHosts: Set<String> = []) {
        self.pins = pins
        self.excludedHosts = excludedHosts
    }
}

/// A ``URLSessionTransport`` configuration that cannot be honoured.
public struct URLSessionTransportConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What cannot be done, and what to use instead.
    public var reason: String
    public var description: String { reason }
}

extension URLSessionTransport {
    /// Creates a transport that pins certificates — which `URLSession` cannot do on this platform.
    ///
    /// FoundationNetworking (Linux, Windows) offers no server-trust challenge, so a pin could
    /// never be checked: rather than silently sending requests unpinned, this initializer throws
    /// a ``URLSessionTransportConfigurationError``. Use `PinningAsyncHTTPClientTransport`
    /// (module CourierAsyncHTTPClient), which checks SPKI pins on every platform.
    ///
    /// On Apple platforms certificate pinning through the session delegate is not implemented
    /// yet either, and this initializer throws there too.
    public convenience init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(), pinning: URLSessionPinning) throws {
        #if canImport(FoundationNetworking)
        throw URLSessionTransportConfigurationError(reason: "URLSessionTransport cannot pin certificates on this platform: FoundationNetworking has no server-trust challenge, so \(pinning.pins.count) pinned host(s) would go unchecked. Use PinningAsyncHTTPClientTransport from CourierAsyncHTTPClient.")
        #else
        throw URLSessionTransportConfigurationError(reason: "URLSessionTransport does not pin certificates yet; use PinningAsyncHTTPClientTransport from CourierAsyncHTTPClient for \(pinning.pins.keys.sorted().joined(separator: ", ")).")
        #endif
    }
}
