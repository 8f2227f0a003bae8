import HTTPTypes
import OpenAPIRuntime

/// Sends one HTTP request and returns the response head and a streaming body.
///
/// A transport moves bytes and nothing else: it does not follow redirects (the client does, so
/// that credentials are handled the same everywhere), does not retry, and does not decode.
/// Write a transport to put Courier on another HTTP stack; write a ``Middleware`` to change
/// what is sent or received.
///
/// A transport must:
/// - send `request` (its `scheme`, `authority` and `path` form the URL) with `body`;
/// - return as soon as the response head arrives, streaming the body afterwards;
/// - stop the exchange and release the connection when the task is cancelled or the returned
///   body's iteration is abandoned;
/// - respect `context.deadline`, reporting expiry as ``TransportError/Kind/timeout``;
/// - report its failures as ``TransportError`` where it can classify them.
///
/// Courier ships `URLSessionTransport` (module CourierURLSession), `AsyncHTTPClientTransport`
/// (module CourierAsyncHTTPClient) and `StubTransport` (module CourierTesting).
public protocol Transport: Sendable {
    /// Sends a request and returns the response head and its body.
    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?)
}

/// The rest of the chain, as seen by a ``Middleware``: call it to send the request onwards.
public typealias HTTPHandler = @Sendable (HTTPRequest, HTTPBody?, RequestContext) async throws -> (HTTPResponse, HTTPBody?)

/// A transport that would rather be given request bodies no larger than a size (it sends them
/// from memory, holding copies): a resumable upload cuts its appends to
/// ``preferredLargestBody`` over it.
package protocol PrefersBoundedRequestBodies: Transport {
    /// The largest request body this transport is best given, in bytes.
    var preferredLargestBody: Int { get }
}
