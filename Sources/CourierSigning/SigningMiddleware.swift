public import Courier
public import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// Signs every request, after authentication and just before the transport, so each retry is
/// signed afresh.
///
/// ```swift
/// // Signed parameters: sorted parameters + secret, MD5, upper-case hex, in `pub_sign`.
/// SigningMiddleware(.md5Parameters(MD5ParameterSignature(secret: "rpbs6us1…", parameterName: "pub_sign")))
/// // HMAC-SHA256 over a canonical request, in `X-Signature`, with an `X-Timestamp`.
/// SigningMiddleware(.hmacSHA256(HMACRequestSignature(secret: Data(secret.utf8))))
/// // Anything else.
/// SigningMiddleware(.custom { request, body in
///     request.headerFields[HTTPField.Name("X-Sig")!] = mySignature(request, body)
/// })
/// ```
///
/// Requests for another origin than the base URL's are not signed unless they set
/// `RequestOptions.sendsCredentialsToOtherOrigins`. The headers the signature adds are
/// added to `RequestContext.sensitiveHeaders`: redacted in logs, removed on a redirect to
/// another origin; a `307`/`308` to another origin that would resend a signed body is refused.
///
/// The body is read for signing only when it can be read again (`HTTPBody.iterationBehavior ==
/// .multiple`, which every in-memory body is); a single-pass stream is never consumed — the
/// HMAC scheme then signs `UNSIGNED-PAYLOAD`, the custom closure gets `nil`.
///
/// A redirect on the same origin is another request (another target; after a `303` a `GET`
/// without the body): each such hop is signed again, with the hop's request and body. A
/// custom closure is called again then, with a request that still carries what it added to
/// the one before: set its fields (`request.headerFields[name] = …`), never append them.
public struct SigningMiddleware: Middleware {
    /// Changes a request to carry its signature; `body` is the body's bytes when they could be read.
    public typealias Signer = @Sendable (_ request: inout HTTPRequest, _ body: Data?) async throws -> Void

    /// How requests are signed.
    public struct Scheme: Sendable {
        fileprivate enum Kind: Sendable {
            case md5(MD5ParameterSignature)
            case hmac(HMACRequestSignature)
            case custom(Signer)
        }
        fileprivate let kind: Kind

        /// The signed-parameter scheme (``MD5ParameterSignature``): sorted parameters and a secret, MD5, upper-case hex.
        public static func md5Parameters(_ signature: MD5ParameterSignature) -> Scheme { Scheme(kind: .md5(signature)) }
        /// HMAC-SHA256 over a canonical request.
        public static func hmacSHA256(_ signature: HMACRequestSignature) -> Scheme { Scheme(kind: .hmac(signature)) }
        /// A closure of your own.
        public static func custom(_ signer: @escaping Signer) -> Scheme { Scheme(kind: .custom(signer)) }
    }

    /// The largest body read for signing (bigger bodies are treated as unreadable).
    public static let maxSignedBodySize = 16 * 1024 * 1024

    private let scheme: Scheme

    /// Creates the middleware.
    public init(_ scheme: Scheme) {
        self.scheme = scheme
    }

    /// Signs the request, then sends it on.
    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, context: RequestContext, next: HTTPHandler
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // A request for another origin than the base URL's is not signed unless it opted in.
        guard context.allowsCredentials else { return try await next(request, body, context) }
        var request = request
        var context = context
        let bytes = try await BodyReading.replayableBytes(body, limit: Self.maxSignedBodySize)
        let before = Set(request.headerFields.map(\.name))
        try await Self.sign(&request, body: bytes, unreadable: body != nil && bytes == nil, with: scheme)
        // A redirect on the same origin sends another request (another target; after a 303 another
        // method and no body): the follower, below this middleware, has each hop signed again.
        context.redirectWatches.append(RedirectWatch { [scheme] hop, sendsBody in
            var hop = hop
            // A hop without a body signs an empty one, as a first request without a body does.
            try await Self.sign(&hop, body: sendsBody ? bytes : Data(), unreadable: false, with: scheme)
            return hop
        })
        // Signature headers (`X-Signature`, `X-Timestamp`, `X-Key-Id`…) are secret: redacted in
        // logs and never carried to another origin, which could replay the request.
        for field in request.headerFields where !before.contains(field.name) { context.sensitiveHeaders.insert(field.name) }
        context.carriesCredentials = true
        return try await next(request, body, context)
    }
}

extension SigningMiddleware {
    /// Signs `request`, whose body is `body`, with `scheme`.
    fileprivate static func sign(_ request: inout HTTPRequest, body: Data?, unreadable: Bool, with scheme: Scheme) async throws {
        switch scheme.kind {
        case .md5(let signature):
            try signature.sign(&request, body: body, unreadable: unreadable)
        case .hmac(let signature):
            try signature.sign(&request, body: body)
        case .custom(let signer):
            try await signer(&request, body)
        }
    }
}

extension Sequence<UInt8> {
    /// Hex digits of the bytes.
    func hex(uppercase: Bool) -> String {
        let digits: [UInt8] = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out = [UInt8]()
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
