import Foundation
import OpenAPIRuntime

/// A type that can be an ``APIRequest``'s body: ``RequestBody`` (the default is `RequestBody?`),
/// or `Data`, as requests written for other clients often declare it (`var body: Data?`). A `Data` body is
/// sent as it is, with no `Content-Type` unless the request's headers set one.
public protocol RequestBodyConvertible: Sendable {
    /// The body to send.
    var requestBody: RequestBody { get }
}

extension RequestBody: RequestBodyConvertible {
    /// The body itself.
    public var requestBody: RequestBody { self }
}

extension Data: RequestBodyConvertible {
    /// The bytes, sent as they are (registered as bytes the client holds, so a transport can
    /// send them without reading them back as a stream).
    public var requestBody: RequestBody { .stream(.registered(self), contentType: nil) }
}
