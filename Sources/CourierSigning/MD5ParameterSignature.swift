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
/// The parameters are the query items (decoded) and the body's: the fields of an
/// `application/x-www-form-urlencoded` body, and the members of a JSON object body (a
/// `bodyParameters` dictionary sent as JSON) whose values are strings, numbers, booleans or null
/// — signed as Swift writes them (`42`, `1.5`, `true`; null as empty). Values are signed as they
/// are, not percent-encoded.
///
/// A request whose body the signature cannot cover — bytes of another type, a JSON array or
/// nested object, a stream that cannot be read again — is refused with an
/// ``UnsignedBodyError`` rather than sent with its body outside the signature, unless
/// ``unsignedBodies`` is ``UnsignedBodies/allowed`` (the signature then covers the query
/// alone, as servers that sign only the query expect).
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
    /// What to do with a body the signature cannot cover (see the type's documentation).
    public var unsignedBodies: UnsignedBodies

    /// What ``MD5ParameterSignature`` does with a request whose body it cannot sign.
    public enum UnsignedBodies: Sendable, Hashable {
        /// Refuse the request with an ``UnsignedBodyError`` (the default): nothing goes out
        /// whose parameters the server would find unsigned.
        case refused
        /// Send it, the signature covering the query (and nothing of the body).
        case allowed
    }

    /// Creates a signature scheme.
    public init(secret: String, secretKeyName: String = "key", parameterName: String = "pub_sign",
                excludedKeys: Set<String> = [], placement: Placement = .query, unsignedBodies: UnsignedBodies = .refused) {
        self.secret = secret
        self.secretKeyName = secretKeyName
        self.parameterName = parameterName
        self.excludedKeys = excludedKeys
        self.placement = placement
        self.unsignedBodies = unsignedBodies
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

    /// The parameters of a request: its query items and, when `body` is a form or a JSON object
    /// of scalar values, its fields or members. A body it cannot cover adds nothing here;
    /// signing refuses it (``UnsignedBodyError``) unless ``unsignedBodies`` allows it.
    public func parameters(of request: HTTPRequest, body: Data?) -> [(String, String)] {
        var parameters = Self.queryParameters(of: request)
        if let body, let fields = try? Self.bodyParameters(body, contentType: request.headerFields[.contentType]) {
            parameters += fields
        }
        return parameters
    }

    /// The decoded query items of the request's target.
    private static func queryParameters(of request: HTTPRequest) -> [(String, String)] {
        var parameters: [(String, String)] = []
        if let components = URLComponents(string: "http://x" + (request.path ?? "/")), let items = components.percentEncodedQueryItems {
            for item in items {
                parameters.append((item.name.removingPercentEncoding ?? item.name, item.value?.removingPercentEncoding ?? ""))
            }
        }
        return parameters
    }

    /// The body's parameters: a form's fields, a JSON object's scalar members, nothing for an
    /// empty body; throws the reason when the body is something else.
    static func bodyParameters(_ body: Data, contentType: String?) throws(UnsignedBodyError.Reason) -> [(String, String)] {
        guard !body.isEmpty else { return [] }
        let media = contentType.flatMap(MediaType.init)
        if media?.essence == "application/x-www-form-urlencoded" {
            return String(decoding: body, as: UTF8.self).split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }
        }
        guard let media, media.isJSON else { throw .notParameters(contentType: contentType) }
        guard let object = try? JSONDecoder().decode([String: JSONScalar].self, from: body) else { throw .notAFlatJSONObject }
        return object.map { ($0.key, $0.value.text) }
    }

    /// A JSON value the signature can write as text.
    private enum JSONScalar: Decodable {
        case text(String)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .text(""); return }
            if let value = try? container.decode(Bool.self) { self = .text(String(value)); return }
            if let value = try? container.decode(Int64.self) { self = .text(String(value)); return }
            if let value = try? container.decode(Double.self) { self = .text(String(value)); return }
            self = .text(try container.decode(String.self))     // an array or object fails here
        }

        var text: String {
            switch self { case .text(let text): text }
        }
    }

    /// Signs `request`. `body` is its body's bytes; `unreadable` is true when it has a body
    /// that cannot be read again (a one-shot stream, a body past
    /// ``SigningMiddleware/maxSignedBodySize``).
    func sign(_ request: inout HTTPRequest, body: Data?, unreadable: Bool = false) throws {
        if unsignedBodies == .refused, unreadable { throw UnsignedBodyError(reason: .unreadable) }
        // The body's parameters, read once: for the refusal and for the signature.
        var bodyFields: [(String, String)] = []
        if let body {
            do throws(UnsignedBodyError.Reason) {
                bodyFields = try Self.bodyParameters(body, contentType: request.headerFields[.contentType])
            } catch {
                if unsignedBodies == .refused { throw UnsignedBodyError(reason: error) }
            }
        }
        if case .query = placement.kind {
            // A stale signature in the target (a next-page link that echoes the query) is
            // replaced, not sent beside the new one.
            RequestTarget.removeQueryItems(named: parameterName, from: &request)
        }
        let value = signature(for: Self.queryParameters(of: request) + bodyFields)
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

/// A request signed with ``MD5ParameterSignature`` whose body the signature cannot cover: it was
/// not sent. Send the parameters as a form or a flat JSON object (`bodyParameters`), or set
/// ``MD5ParameterSignature/unsignedBodies`` to ``MD5ParameterSignature/UnsignedBodies/allowed``
/// when the server signs the query alone.
public struct UnsignedBodyError: Error, Sendable, CustomStringConvertible {
    /// Why the body cannot be signed.
    public enum Reason: Error, Sendable, Hashable {
        /// The body is neither a form nor JSON (its `Content-Type`, if any).
        case notParameters(contentType: String?)
        /// The body is JSON, but not an object whose values are strings, numbers, booleans or null.
        case notAFlatJSONObject
        /// The body is a stream that cannot be read again, or larger than
        /// ``SigningMiddleware/maxSignedBodySize``.
        case unreadable
    }

    /// Why the body cannot be signed.
    public let reason: Reason

    /// What failed, and the two ways out.
    public var description: String {
        let what = switch reason {
        case .notParameters(let type): "its body (Content-Type: \(type.map { LogSafeText.escape(String($0.prefix(80))) } ?? "none")) is neither a form nor JSON"
        case .notAFlatJSONObject: "its JSON body is not an object of strings, numbers, booleans and nulls"
        case .unreadable: "its body is a stream that cannot be read again, or larger than \(SigningMiddleware.maxSignedBodySize) bytes"
        }
        return "MD5ParameterSignature cannot sign this request: \(what). Send the parameters as a form or a flat JSON object, or set unsignedBodies: .allowed to sign the query alone"
    }
}
