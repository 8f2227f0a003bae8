import Courier
import Crypto
public import Foundation
public import HTTPTypes

/// The signature of APIs that sign their parameters with MD5: drop excluded keys, sort the
/// parameters by key, join them as
/// `k=v` with `&`, append `&key=<secret>`, take the MD5, write it in upper-case hex, and put it
/// in a query parameter (default `pub_sign`) or a header.
///
/// ```swift
/// let signature = MD5ParameterSignature(secret: "rpbs6us1m8r2j9g6u06ff2bo18orwaya",
///                                       parameterName: "pub_sign", excludedKeys: ["pub_ticket"])
/// signature.stringToSign([("b", "2"), ("a", "1")])   // "a=1&b=2&key=rpbs6us1m8r2j9g6u06ff2bo18orwaya"
/// ```
///
/// The parameters are the query items (decoded) and, for an `application/x-www-form-urlencoded`
/// body that can be read again, the form fields. Values are signed as they are, not percent-encoded.
/// (Use it for servers that expect this MD5 scheme; prefer ``HMACRequestSignature`` for a new API.)
public struct MD5ParameterSignature: Sendable {
    /// Where the signature goes.
    public struct Placement: Sendable, Hashable {
        fileprivate enum Kind: Hashable { case query, header(String) }
        fileprivate let kind: Kind
        /// A query parameter named ``MD5ParameterSignature/parameterName``.
        public static let query = Placement(kind: .query)
        /// A header.
        public static func header(_ name: String) -> Placement { Placement(kind: .header(name)) }
    }

    /// The shared secret appended as `key=<secret>`.
    public var secret: String
    /// The name under which the secret is appended (default `key`).
    public var secretKeyName: String
    /// The name of the signature parameter (default `pub_sign`); never signed itself.
    public var parameterName: String
    /// Parameters left out of the signature (system-level parameters such as `pub_ticket`).
    public var excludedKeys: Set<String>
    /// Where the signature goes.
    public var placement: Placement

    /// Creates a signature scheme.
    public init(secret: String, secretKeyName: String = "key", parameterName: String = "pub_sign",
                excludedKeys: Set<String> = [], placement: Placement = .query) {
        self.secret = secret
        self.secretKeyName = secretKeyName
        self.parameterName = parameterName
        self.excludedKeys = excludedKeys
        self.placement = placement
    }

    /// The text that is hashed, for these parameters.
    public func stringToSign(_ parameters: [(String, String)]) -> String {
        let kept = parameters.filter { !excludedKeys.contains($0.0) && $0.0 != parameterName }
        let sorted = kept.enumerated().sorted { lhs, rhs in
            lhs.element.0 != rhs.element.0 ? Array(lhs.element.0.utf8).lexicographicallyPrecedes(rhs.element.0.utf8) : lhs.offset < rhs.offset
        }.map(\.element)
        let joined = sorted.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        return (joined.isEmpty ? "" : joined + "&") + "\(secretKeyName)=\(secret)"
    }

    /// The upper-case hex MD5 of ``stringToSign(_:)``.
    public func signature(for parameters: [(String, String)]) -> String {
        Insecure.MD5.hash(data: Data(stringToSign(parameters).utf8)).hex(uppercase: true)
    }

    /// The parameters of a request: its query items and, when `body` is a form, its fields.
    public func parameters(of request: HTTPRequest, body: Data?) -> [(String, String)] {
        var parameters: [(String, String)] = []
        if let components = URLComponents(string: "http://x" + (request.path ?? "/")), let items = components.percentEncodedQueryItems {
            for item in items {
                parameters.append((item.name.removingPercentEncoding ?? item.name, item.value?.removingPercentEncoding ?? ""))
            }
        }
        if let body, !body.isEmpty, request.headerFields[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                parameters.append((parts[0], parts.count > 1 ? parts[1] : ""))
            }
        }
        return parameters
    }

    func sign(_ request: inout HTTPRequest, body: Data?) throws {
        if case .query = placement.kind {
            // A stale signature in the target (a next-page link that echoes the query) is
            // replaced, not sent beside the new one.
            MiddlewareSupport.removeQueryItems(named: parameterName, from: &request)
        }
        let value = signature(for: parameters(of: request, body: body))
        switch placement.kind {
        case .query:
            let target = request.path ?? "/"
            let encodedName = QueryEncoding.encode([URLQueryItem(name: parameterName, value: value)])
            request.path = target + (target.contains("?") ? "&" : "?") + encodedName
        case .header(let name):
            let field = try HeaderValidation.field(name: name, value: value)
            request.headerFields[field.name] = field.value
        }
    }
}
