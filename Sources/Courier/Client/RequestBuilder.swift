import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A request turned into what goes on the wire.
struct PreparedRequest: Sendable {
    var head: HTTPRequest
    var body: HTTPBody?
    var summary: RequestSummary
    /// Whether the request goes to the base URL's origin (``RequestContext/targetsBaseOrigin``).
    var targetsBaseOrigin: Bool
    /// The route template (``RequestContext/urlTemplate``), when known.
    var urlTemplate: String? = nil
}

/// Turns ``APIRequest`` values into `HTTPRequest`s: resolves the URL against the base URL,
/// expands path templates, encodes the query and the body, merges headers.
///
/// Everything that does not change between requests (the parsed base URL, the merged default
/// headers) is computed once, when the client is created.
struct RequestBuilder: Sendable {
    let configuration: APIConfiguration
    /// The checked base URL; `nil` when it is not one Courier can send to (``baseError``).
    /// Kept apart from the error, so that requests read it without going through a `Result`.
    let baseURL: CheckedURL?
    /// Whether ``baseURL`` is set, read by every request: `baseURL != nil` copies the whole
    /// `CheckedURL` (five strings) to compare it.
    let hasBaseURL: Bool
    /// Why the base URL was refused, thrown by every request whose path is relative.
    let baseError: APIError?
    /// `scheme://authority` of the base URL, the start of every summary of a request to it.
    let baseOrigin: String
    /// The base URL's scheme, authority and query, read by every request without unwrapping
    /// ``baseURL``. (Measured: no difference in instructions from reading them through it.)
    let baseScheme: String, baseAuthority: String, baseQuery: String?
    /// The base URL's path without its trailing `/`, computed once rather than per request.
    let basePath: String
    /// Courier's standard headers, the preferred languages when asked for, and the
    /// configuration's default headers: for requests to the base URL's origin.
    let defaultHeaders: HTTPFields
    /// Only `Accept` and `User-Agent`: for requests to other origins, which must not get the
    /// configuration's headers (they often carry an API key).
    let otherOriginHeaders: HTTPFields
    /// The names in ``defaultHeaders`` that ``otherOriginHeaders`` lacks (the configuration's
    /// headers, `Accept-Language`): removed when a redirect leaves the base URL's origin.
    let originOnlyHeaders: Set<HTTPField.Name>
    /// A default header the configuration refused (CR, LF or NUL in its value): every request
    /// fails with it rather than going out without the header.
    let invalidDefaultHeader: InvalidHeaderError?
    let encodedBaseParameters: String
    /// Each base parameter's name (decoded) and its encoded `name=value`, for a request whose
    /// query already has some names (its own value wins). Items left out of the query (a `nil`
    /// value) are not here either.
    let encodedBaseItems: [(name: String, item: String)]
    /// The standard secret query names plus the configuration's, when it has any.
    let queryNames: Redaction.QueryNames?

    /// Whether the configuration's ``APIConfiguration/acceptableStatusCodes`` are 200–299
    /// (compared once here; see `RequestContext.accepts(statusCode:)`).
    let acceptsSuccessCodesOnly: Bool

    init(configuration: APIConfiguration) {
        self.configuration = configuration
        self.acceptsSuccessCodesOnly = configuration.acceptableStatusCodes == Set(200..<300)
        let base = Result { try CheckedURL(configuration.baseURL) }.mapError { $0 as? APIError ?? .invalidURL(configuration.baseURL.absoluteString, reason: "\($0)") }
        self.baseURL = try? base.get()
        self.hasBaseURL = baseURL != nil
        if case .failure(let error) = base { self.baseError = error } else { self.baseError = nil }
        self.baseOrigin = baseURL.map { "\($0.scheme)://\($0.authority)" } ?? ""
        self.basePath = baseURL?.pathForJoining ?? ""
        self.baseScheme = baseURL?.scheme ?? ""
        self.baseAuthority = baseURL?.authority ?? ""
        self.baseQuery = baseURL?.query
        let standard = APIConfiguration.standardHeaders()
        var headers = standard
        if configuration.sendsPreferredLanguages { headers.append(contentsOf: APIConfiguration.preferredLanguagesHeader()) }
        for field in configuration.defaultHeaders { headers[field.name] = nil }
        headers.append(contentsOf: configuration.defaultHeaders)
        self.defaultHeaders = headers
        self.otherOriginHeaders = standard
        self.originOnlyHeaders = Set(headers.map(\.name)).subtracting(standard.map(\.name))
        self.invalidDefaultHeader = configuration.defaultHeaders.invalidHeader
        self.encodedBaseParameters = QueryEncoding.encode(configuration.baseParameters)
        self.encodedBaseItems = configuration.baseParameters.compactMap { item in
            let encoded = QueryEncoding.encode([item])
            return encoded.isEmpty ? nil : (Self.queryName(of: Substring(encoded)), encoded)
        }
        self.queryNames = configuration.sensitiveQueryNames.isEmpty ? nil : Redaction.QueryNames.standard.adding(configuration.sensitiveQueryNames)
    }

    /// A summary of `head`, with the standard secret query names and the configuration's redacted.
    func summary(of head: HTTPRequest, operationName: String?) -> RequestSummary {
        var summary = RequestSummary(head, operationName: operationName)
        if let queryNames {
            summary.url = head.urlString(redactingQuery: queryNames)
        }
        return summary
    }

    /// The same summary as ``summary(of:operationName:)`` for a request to the base URL's
    /// origin, whose start was written once (``baseOrigin``) and is joined to the target only
    /// when the summary is read, which most requests never do.
    @inline(__always)
    private func summary(ofBaseTarget target: String, mayHaveQuery: Bool, method: HTTPRequest.Method, operationName: String) -> RequestSummary {
        let shown: String
        if !mayHaveQuery {
            shown = target
        } else if let queryNames {
            shown = queryNames.redact(target: target)
        } else {
            shown = target.containsByte(UInt8(ascii: "?")) ? Redaction.redactQuery(inTarget: target) : target
        }
        return RequestSummary(method: method.rawValue, origin: baseOrigin, target: shown, operationName: operationName)
    }

    /// A summary of a request not built yet (its body failed to encode first): its path as
    /// written, secret query values redacted as in ``summary(of:operationName:)``.
    func summary(method: String, path: String) -> RequestSummary {
        RequestSummary(method: method, url: redacted(path))
    }

    /// A path as written (with its own query, if any), its secret query values redacted.
    /// `path` for an error: secret query values redacted, and `user:password@` when it is an
    /// absolute URL.
    private func redacted(_ path: String) -> String {
        (queryNames ?? .standard).redact(url: path)
    }

    func prepare<R: APIRequest>(_ request: R, options: RequestOptions, operationName: String) throws -> PreparedRequest {
        let method: HTTPRequest.Method
        do {
            method = try request.wireMethod()
        } catch {
            throw APIError.encodingFailed(request: RequestSummary(method: "?", url: redacted(request.path.requestPath.text),
                                                                  operationName: operationName), underlying: error)
        }
        // The path is read once: it is often a computed property that encodes interpolations.
        let requestPath = request.path.requestPath
        let target = try resolveTarget(request, path: requestPath, method: method, options: options)
        var head = HTTPRequest(method: method, scheme: target.scheme, authority: target.authority, path: target.path)
        let summary = target.isBaseAuthority ? summary(ofBaseTarget: target.path, mayHaveQuery: target.mayHaveQuery, method: method, operationName: operationName)
                                             : self.summary(of: head, operationName: operationName)
        if let pending = options.deferredEncodingError {
            throw APIError.encodingFailed(request: summary, underlying: pending)
        }
        if let invalidDefaultHeader {
            throw APIError.encodingFailed(request: summary, underlying: invalidDefaultHeader)
        }

        var fields = target.sendsDefaults ? defaultHeaders : otherOriginHeaders
        let own: HTTPFields
        let requestBody: RequestBody?
        do {
            own = try request.wireHeaders()
            requestBody = try request.wireBody()
        } catch {
            throw APIError.encodingFailed(request: summary, underlying: error)
        }
        if own.count > HTTPFields.responseFieldLimit - fields.count {
            // Middleware adds a few fields below; `HTTPFields` traps past 65,534.
            let error = InvalidHeaderError(name: "(all)", reason: "the request has \(own.count + fields.count) header fields; at most \(HTTPFields.responseFieldLimit) are sent")
            throw APIError.encodingFailed(request: summary, underlying: error)
        }
        if !own.isEmpty {
            for field in own { fields[field.name] = nil }
            fields.append(contentsOf: own)
        }

        var body: HTTPBody?
        if let requestBody {
            do {
                let (encoded, contentType) = try encode(requestBody)
                body = encoded
                // The body's type beats a configuration default (a multipart boundary must
                // survive a default `Content-Type: application/json`); the request's own wins.
                if let contentType, !own.has(.contentType) {
                    // The caller's text (`.data(_, contentType:)`…): refused with a line break,
                    // as any header value is, rather than sent with it turned into a space.
                    try HeaderValidation.validate(value: contentType, name: "Content-Type")
                    fields[.contentType] = contentType
                } else if case .multipart(let form) = requestBody, let ownType = own[.contentType] {
                    // The form's boundary frames the body: without it in the header the server
                    // cannot split the parts.
                    fields[.contentType] = try Self.multipartContentType(ownType, boundary: form.boundary, formType: form.contentType)
                } else if contentType == nil, fields[.contentType] == nil, let fallback = configuration.rawBodyContentType {
                    // Bytes of no declared type (a `Data` body): typed as the configuration says,
                    // never sent untyped unless it says so.
                    try HeaderValidation.validate(value: fallback, name: "Content-Type")
                    fields[.contentType] = fallback
                }
            } catch {
                throw APIError.encodingFailed(request: summary, underlying: error)
            }
        }
        head.headerFields = fields
        // `consume`: the summary moves into the result (copied, then the local released, its
        // four strings were retained and released once more).
        return PreparedRequest(head: head, body: body, summary: consume summary, targetsBaseOrigin: target.isBaseOrigin,
                               urlTemplate: urlTemplate(of: requestPath))
    }

    /// The base URL's path joined with the request path's template, without its query; `nil`
    /// when the template is unknown or the path is an absolute URL.
    private func urlTemplate(of path: RequestPath) -> String? {
        guard var template = path.template, !Self.hasScheme(template),
              hasBaseURL else { return nil }
        if let mark = template.firstIndex(ofByte: UInt8(ascii: "?")) { template = String(template[..<mark]) }
        let joined = basePath + (template.utf8.first == UInt8(ascii: "/") || template.isEmpty ? template : "/" + template)
        return joined.isEmpty ? "/" : joined
    }

    /// Where a request goes.
    private struct Target {
        var scheme: String
        var authority: String
        /// The request target: path and query.
        var path: String
        /// Whether it is the base URL's origin.
        var isBaseOrigin: Bool
        /// Whether the configuration's default headers and base parameters go with it.
        var sendsDefaults: Bool
        /// Whether `scheme` and `authority` are the base URL's as written (``baseOrigin``).
        var isBaseAuthority = false
        /// Whether ``path`` may hold a `?` (`false` only when it is known to hold none).
        var mayHaveQuery = true
    }

    /// The scheme, authority and request target (path and query).
    private func resolveTarget<R: APIRequest>(_ request: R, path requestPath: RequestPath, method: HTTPRequest.Method,
                                              options: RequestOptions) throws -> Target {
        if let error = requestPath.error {
            throw APIError.encodingFailed(request: RequestSummary(method: method.rawValue, url: redacted(requestPath.text)), underlying: error)
        }
        var rawPath = requestPath.text
        var ownQuery: String?
        let expanded: String
        // Most paths hold only letters, digits, `-`, `_`, `~` and `/`: then there is no fragment,
        // query, scheme, template, dot segment or byte to encode, and one scan of the bytes
        // replaces the nine searches below.
        let plain = Self.isPlainPath(rawPath)
        if plain {
            expanded = rawPath
        } else {
            // A path written with its own query ("/search?q=x") keeps it; the fragment is never sent.
            // (Searched as UTF-8 bytes: `String.firstIndex(of: Character)` walks grapheme clusters
            // and cost a tenth of Courier's own overhead per request.)
            if let hash = rawPath.firstIndex(ofByte: UInt8(ascii: "#")) { rawPath = String(rawPath[..<hash]) }
            if let mark = rawPath.firstIndex(ofByte: UInt8(ascii: "?")) {
                ownQuery = PercentEncoding.encode(String(rawPath[rawPath.index(after: mark)...]), allowing: .query)
                rawPath = String(rawPath[..<mark])
            }
            do {
                if Self.hasScheme(rawPath), let origin = Self.originPrefix(of: rawPath), !rawPath[..<origin].contains("{") {
                    // `scheme://authority` as written: `CheckedURL` checks it, and encoding it as a
                    // path would turn an IPv6 literal's brackets into `%5B`/`%5D`.
                    expanded = String(rawPath[..<origin]) + (try PathTemplate.expand(String(rawPath[origin...]), with: request.pathParameters))
                } else {
                    expanded = try PathTemplate.expand(rawPath, with: request.pathParameters)
                }
            } catch {
                throw APIError.encodingFailed(request: RequestSummary(method: method.rawValue, url: redacted(rawPath)), underlying: error)
            }
            if let segment = Self.dotSegment(in: expanded) {
                throw APIError.encodingFailed(request: RequestSummary(method: method.rawValue, url: redacted(rawPath)),
                                              underlying: PathEncodingError(reason: "the path has a '\(segment)' segment, which would climb out of the path it is in"))
            }
        }

        var query = QueryEncoding.encode(request.query)
        let more: [URLQueryItem]
        do {
            more = try request._wireQuery()
        } catch {
            throw APIError.encodingFailed(request: RequestSummary(method: method.rawValue, url: redacted(requestPath.text)), underlying: error)
        }
        if !more.isEmpty {
            let encoded = QueryEncoding.encode(more)
            query = query.isEmpty ? encoded : query + "&" + encoded
        }
        func addBaseParameters() {
            guard !encodedBaseParameters.isEmpty, options.includeBaseParameters else { return }
            if query.isEmpty, ownQuery == nil {
                query = encodedBaseParameters
                return
            }
            // A name the request (or the base URL's own query) sends already keeps that value,
            // as BaseParametersMiddleware does; names are compared decoded, since the request's
            // query items and a query written in its path are encoded differently.
            var taken = Set(query.split(separator: "&").map(Self.queryName(of:)))
            for written in [ownQuery, baseQuery] {
                if let written { taken.formUnion(written.split(separator: "&").map(Self.queryName(of:))) }
            }
            for base in encodedBaseItems where !taken.contains(base.name) {
                query = query.isEmpty ? base.item : query + "&" + base.item
            }
        }

        if !plain, Self.hasScheme(expanded) {
            let endpoint = try CheckedURL(string: expanded)
            // An absolute URL elsewhere (a pre-signed link, a CDN) gets none of the client's
            // defaults unless the request opts in: they often carry secrets.
            let isBaseOrigin = baseURL?.isSameOrigin(as: endpoint) ?? false
            let sendsDefaults = isBaseOrigin || options.sendsCredentialsToOtherOrigins
            if sendsDefaults { addBaseParameters() }
            return Target(scheme: endpoint.scheme, authority: endpoint.authority,
                          path: Self.target(path: endpoint.path, existingQuery: Self.joined(endpoint.query, ownQuery), query: query),
                          isBaseOrigin: isBaseOrigin, sendsDefaults: sendsDefaults)
        }
        addBaseParameters()
        guard hasBaseURL else { throw baseError ?? .invalidURL(configuration.baseURL.absoluteString, reason: "it is not a valid URL") }
        let path: String
        if expanded.utf8.first == UInt8(ascii: "/") {   // not `hasPrefix`, which compares characters
            path = basePath + expanded
        } else if !expanded.isEmpty {
            path = basePath + "/" + expanded
        } else {
            path = basePath
        }
        let existingQuery = Self.joined(baseQuery, ownQuery)
        return Target(scheme: baseScheme, authority: baseAuthority,
                      path: Self.target(path: path, existingQuery: existingQuery, query: query),
                      isBaseOrigin: true, sendsDefaults: true, isBaseAuthority: true,
                      mayHaveQuery: !plain || existingQuery != nil || !query.isEmpty)
    }

    /// The decoded name of an encoded query item (`name=value` or `name`).
    private static func queryName(of item: Substring) -> String {
        let name = String(item.firstIndex(of: "=").map { item[..<$0] } ?? item)
        return name.removingPercentEncoding ?? name
    }

    /// The first `.` or `..` segment of a path (also percent-encoded, `%2e%2E`), if it has one.
    /// Absolute URLs are checked from their path on.
    static func dotSegment(in path: String) -> String? {
        guard path.containsByte(UInt8(ascii: ".")) || path.containsByte(UInt8(ascii: "%")) else { return nil }
        var rest = Substring(path)
        if hasScheme(path), let start = path.range(of: "://") {
            rest = path[start.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            rest = rest[slash...]
        }
        for segment in rest.split(separator: "/", omittingEmptySubsequences: true) {
            let decoded = segment.replacingOccurrences(of: "%2e", with: ".", options: .caseInsensitive)
            if decoded == "." || decoded == ".." { return String(segment) }
        }
        return nil
    }

    /// Whether a path holds only ASCII letters, digits, `-`, `_`, `~` and `/`: bytes that
    /// need no encoding and start no query, fragment, scheme, template or dot segment.
    static func isPlainPath(_ path: String) -> Bool {
        func plain(_ byte: UInt8) -> Bool {
            let lower = byte | 0x20
            return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
        return path.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(plain) } ?? path.utf8.allSatisfy(plain)
    }

    /// Where the path of an absolute URL starts (after `scheme://authority`).
    private static func originPrefix(of url: String) -> String.Index? {
        guard let start = url.range(of: "://") else { return nil }
        return url[start.upperBound...].firstIndex(of: "/") ?? url.endIndex
    }

    /// Whether a path is an absolute URL (`scheme://…`).
    static func hasScheme(_ path: String) -> Bool {
        guard let colon = path.firstIndex(ofByte: UInt8(ascii: ":")) else { return false }
        let scheme = path.utf8[..<colon]
        guard let first = scheme.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first | 0x20) else { return false }
        let allowed = scheme.allSatisfy { byte in
            let lower = byte | 0x20
            return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
        return allowed && path.utf8[colon...].starts(with: "://".utf8)
    }

    /// Two optional queries joined with `&`; `nil` when neither has text. (Not an array's
    /// `joined`: building and freeing the array is an allocation per request.)
    /// (Nor a `switch` over the pair: the tuple of optionals it builds was copied and
    /// destroyed through outlined helpers.)
    private static func joined(_ first: String?, _ second: String?) -> String? {
        guard let first, !first.isEmpty else { return second?.isEmpty == false ? second : nil }
        guard let second, !second.isEmpty else { return first }
        return first + "&" + second
    }

    private static func target(path: String, existingQuery: String?, query: String) -> String {
        let path = path.isEmpty ? "/" : path
        switch (existingQuery, query.isEmpty) {
        case (nil, true): return path
        case (nil, false): return path + "?" + query
        case (let existing?, true): return path + "?" + existing
        case (let existing?, false): return path + "?" + existing + "&" + query
        }
    }
}
