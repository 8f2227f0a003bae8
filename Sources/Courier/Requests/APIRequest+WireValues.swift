import Foundation
import HTTPTypes

/// Turns a request's `method`, `headers`, `body`, `queryItems` and `queryParameters` — whatever
/// types it declared them with —
/// into what goes on the wire, or into a ``RequestDeclarationError`` that names the property.
///
/// The associated types are unconstrained on purpose: a request written for another client
/// (`var method: HTTPMethod` with its own enum, `var headers: [String: String]?`) must be sent
/// or refused, never silently replaced by Courier's default. The declared types (the protocol's
/// defaults) are recognised by comparing metatypes, a pointer comparison: the client's generic
/// code is not specialized for the caller's request type, so an `as?` there is a runtime cast
/// for the method and another for the headers. There the metatypes are equal, so `unsafeBitCast`
/// is the identity. The other types go through the casts.
extension APIRequest {
    /// The HTTP method.
    package func wireMethod() throws -> HTTPRequest.Method {
        let value = method
        if Method.self == HTTPRequest.Method.self { return unsafeBitCast(value, to: HTTPRequest.Method.self) }
        if let method = value as? HTTPRequest.Method { return method }
        let text: String
        if let string = value as? String {
            text = string
        } else if let raw = value as? any RawRepresentable, let string = raw.rawValue as? String {
            text = string
        } else {
            throw declarationError("method", "is a \(type(of: value)), which Courier cannot send as an HTTP method; declare HTTPRequest.Method, a String, or an enum whose raw value is the method's name")
        }
        let upper = text.uppercased()
        guard Self.standardMethods.contains(upper), let method = HTTPRequest.Method(upper) else {
            throw declarationError("method", "is '\(text)' (\(type(of: value))), which is not a standard HTTP method; use HTTPRequest.Method(\"…\") for an extension method")
        }
        return method
    }

    /// The request's own header fields.
    package func wireHeaders() throws -> HTTPFields {
        let value = headers
        if Headers.self == RequestHeaders.self { return try unsafeBitCast(value, to: RequestHeaders.self).headerFields() }
        guard let unwrapped = Self.unwrapped(value) else { return HTTPFields() }
        if let headers = unwrapped as? RequestHeaders { return try headers.headerFields() }
        if let fields = unwrapped as? HTTPFields { return fields }
        if let convertible = unwrapped as? any RequestHeadersConvertible { return try convertible.headerFields() }
        throw declarationError("headers", "is a \(type(of: value)), which Courier cannot send as header fields; declare RequestHeaders, HTTPFields or [String: String]")
    }

    /// The request's body, if it has one: ``body`` or ``bodyParameters``, never both.
    package func wireBody() throws -> RequestBody? {
        try _wireBody()
    }

    /// `body` unless `bodyParameters` gives one too (an error naming it), else the parameters'.
    fileprivate func either(_ body: RequestBody?, _ parameters: RequestBody?) throws -> RequestBody? {
        guard let parameters else { return body }
        if body != nil {
            throw declarationError("bodyParameters", "and `body` both give the request a body; declare one of them")
        }
        return parameters
    }

    /// ``bodyParameters`` as Courier sends it, for any `BodyParameters` type.
    fileprivate func wireBodyParameters() throws -> RequestBody? {
        guard let unwrapped = Self.unwrapped(bodyParameters) else { return nil }
        if let strings = unwrapped as? [String: String] { return try Self.jsonObject(strings) }
        if let values = unwrapped as? [String: Any] {
            guard JSONSerialization.isValidJSONObject(values) else {
                throw declarationError("bodyParameters", "holds a value JSON cannot represent (only strings, numbers, booleans, NSNull, arrays and dictionaries of them); use `body: .json(value)` with an Encodable value")
            }
            return try Self.jsonObject(values)
        }
        throw declarationError("bodyParameters", "is a \(BodyParameters.self), which Courier cannot send as a body; declare [String: any Sendable] or [String: String], or use `body`")
    }

    /// `object` as a JSON body, keys sorted (the bytes, a signature over them, are the same at
    /// every send). `JSONSerialization`, not `JSONEncoder`: the values are `Any`.
    fileprivate static func jsonObject(_ object: [String: Any]) throws -> RequestBody {
        .data(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), contentType: "application/json")
    }

    /// ``body`` (or ``bodyParameters``) as Courier sends it, for any `Body` type: see
    /// `APIRequest._wireBody()`.
    public func _wireBody() throws -> RequestBody? {
        try either(try anyBody(), try wireBodyParameters())
    }

    /// ``body`` of any type, through run-time casts.
    fileprivate func anyBody() throws -> RequestBody? {
        guard let unwrapped = Self.unwrapped(body) else { return nil }
        if let body = unwrapped as? RequestBody { return body }
        if let convertible = unwrapped as? any RequestBodyConvertible { return convertible.requestBody }
        throw declarationError("body", "is a \(Body.self), which Courier cannot send as a body; declare RequestBody (`.json(value)` for an Encodable value) or Data")
    }

    /// ``queryItems`` then ``queryParameters``, of any types: see `APIRequest._wireQuery()`.
    public func _wireQuery() throws -> [URLQueryItem] {
        let items = try wireQueryItems()
        let parameters = try wireQueryParameters()
        return parameters.isEmpty ? items : items + parameters
    }

    /// The request's `queryItems`, whichever of the accepted types it declared.
    package func wireQueryItems() throws -> [URLQueryItem] {
        let value = queryItems
        if QueryItems.self == [URLQueryItem]?.self { return unsafeBitCast(value, to: [URLQueryItem]?.self) ?? [] }
        if QueryItems.self == [URLQueryItem].self { return unsafeBitCast(value, to: [URLQueryItem].self) }
        guard let unwrapped = Self.unwrapped(value) else { return [] }
        if let items = unwrapped as? [URLQueryItem] { return items }
        throw declarationError("queryItems", "is a \(QueryItems.self), which Courier cannot send as query items; declare [URLQueryItem] or [URLQueryItem]?")
    }

    /// The request's options with its `includeBaseParameters` and `timeout` properties (the
    /// layered-client spelling) folded in, so that everything after reads the options alone —
    /// the builder, middleware such as ``BaseParametersMiddleware``, pagination. A `timeout`
    /// that is not a positive number becomes the options' deferred encoding error.
    package func wireOptions() -> RequestOptions {
        let includesBaseParameters = includeBaseParameters
        let seconds = timeout
        // The usual request: its options as they are, without a copy to change.
        if includesBaseParameters, seconds == .infinity { return options }
        var options = self.options
        if !includesBaseParameters { options.includeBaseParameters = false }
        if seconds != .infinity, options.timeout == nil {
            if seconds > 0, seconds.isFinite {
                // `Duration.seconds(_:)` traps past ~1.7e20 s: anything past the longest wait
                // means the same.
                options.timeout = seconds >= Duration.longestWait.secondsValue ? .longestWait : .seconds(seconds)
            } else if options.deferredEncodingError == nil {
                options.deferredEncodingError = declarationError("timeout", "is \(seconds), which is not a positive number of seconds")
            }
        }
        return options
    }

    /// The request's `queryParameters` (the layered-client spelling) as query items, sorted by
    /// name: a dictionary has no order, and the URL (a cache key, a signature over it) must be
    /// the same at every send.
    package func wireQueryParameters() throws -> [URLQueryItem] {
        let value = queryParameters
        let dictionary: [String: String]
        if QueryParameters.self == [String: String]?.self {
            guard let given = unsafeBitCast(value, to: [String: String]?.self) else { return [] }
            dictionary = given
        } else if QueryParameters.self == [String: String].self {
            dictionary = unsafeBitCast(value, to: [String: String].self)
        } else if let unwrapped = Self.unwrapped(value) {
            guard let given = unwrapped as? [String: String] else {
                throw declarationError("queryParameters", "is a \(QueryParameters.self), which Courier cannot send as query parameters; declare [String: String] or [String: String]?")
            }
            dictionary = given
        } else {
            return []
        }
        return Self.sortedItems(dictionary)
    }

    /// `dictionary` as query items sorted by name.
    fileprivate static func sortedItems(_ dictionary: [String: String]) -> [URLQueryItem] {
        guard !dictionary.isEmpty else { return [] }
        return dictionary.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
    }

    /// `value` with every layer of `Optional` around it removed (`Data??` → `Data`); `nil` when
    /// one of them is empty.
    private static func unwrapped(_ value: Any) -> Any? {
        var wrapped = value
        while let optional = wrapped as? any OptionalValue {
            guard let inner = optional.wrappedValue else { return nil }
            wrapped = inner
        }
        return wrapped
    }

    private func declarationError(_ property: String, _ reason: String) -> RequestDeclarationError {
        RequestDeclarationError(requestType: _typeName(Self.self, qualified: false), property: property, reason: reason)
    }

    private static var standardMethods: Set<String> {
        ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY"]
    }
}

extension APIRequest where QueryItems == [URLQueryItem]?, QueryParameters == [String: String]? {
    /// ``queryItems`` then ``queryParameters`` of the declared default types: most often none.
    public func _wireQuery() throws -> [URLQueryItem] {
        let items = queryItems ?? []
        guard let parameters = queryParameters, !parameters.isEmpty else { return items }
        return items + Self.sortedItems(parameters)
    }
}

// The usual declarations, compiled for their types: a `body` of Courier's type, and
// `bodyParameters` of the default type, most often `nil` (one check, no run-time cast).

extension APIRequest where BodyParameters == [String: String]? {
    /// ``body`` of any type, or ``bodyParameters`` of the default type.
    public func _wireBody() throws -> RequestBody? {
        guard let parameters = bodyParameters else { return try anyBody() }
        return try either(try anyBody(), try Self.jsonObject(parameters))
    }
}

extension APIRequest where Body == RequestBody?, BodyParameters == [String: String]? {
    /// ``body`` as it is (the declared type is the one Courier sends), or ``bodyParameters``.
    public func _wireBody() throws -> RequestBody? {
        guard let parameters = bodyParameters else { return body }
        return try either(body, try Self.jsonObject(parameters))
    }
}

extension APIRequest where Body == RequestBody, BodyParameters == [String: String]? {
    /// ``body`` as it is, declared without the optional (``bodyParameters`` too is an error).
    public func _wireBody() throws -> RequestBody? {
        guard let parameters = bodyParameters else { return body }
        return try either(body, try Self.jsonObject(parameters))
    }
}

extension APIRequest where Body == RequestBody? {
    /// ``body`` as it is, or ``bodyParameters`` of another type than the default.
    public func _wireBody() throws -> RequestBody? {
        try either(body, try wireBodyParameters())
    }
}

extension APIRequest where Body == RequestBody {
    /// ``body`` as it is, declared without the optional (``bodyParameters`` too is an error).
    public func _wireBody() throws -> RequestBody? {
        try either(body, try wireBodyParameters())
    }
}

/// Lets code that holds a value as `Any` or as a generic see through an `Optional`.
package protocol OptionalValue {
    /// The wrapped value, `nil` when there is none.
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    package var wrappedValue: Any? { map { $0 as Any } }
}
