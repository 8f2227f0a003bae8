import Foundation
import HTTPTypes

/// Conversions between OpenAPI's request form (a path relative to a base URL) and Courier's
/// (scheme, authority and the full path in the request).
enum URLForms {
    /// The base URL's path without a trailing slash (`""` for `https://host` or `https://host/`).
    static func basePath(_ baseURL: URL) -> String {
        var path = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// `scheme://host[:port]` of a URL.
    static func origin(_ baseURL: URL) -> (scheme: String, authority: String) {
        let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)
        let scheme = components?.scheme ?? "https"
        var host = components?.percentEncodedHost ?? ""
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        if let port = components?.port { host += ":\(port)" }
        return (scheme, host)
    }

    /// An OpenAPI request (path relative to `baseURL`) in Courier's absolute form.
    static func absolute(_ request: HTTPRequest, baseURL: URL) -> HTTPRequest {
        var request = request
        let (scheme, authority) = origin(baseURL)
        if request.scheme == nil { request.scheme = scheme }
        if request.authority == nil {
            request.authority = authority
            let path = request.path ?? ""
            request.path = basePath(baseURL) + (path.isEmpty || path.hasPrefix("/") || path.hasPrefix("?") ? path : "/" + path)
            if request.path?.isEmpty ?? true { request.path = "/" }
        }
        return request
    }

    /// A Courier request in OpenAPI's form: the path relative to the returned base URL.
    static func relative(_ request: HTTPRequest, baseURL: URL) -> (HTTPRequest, URL) {
        var request = request
        let (scheme, authority) = origin(baseURL)
        let requestScheme = request.scheme ?? scheme
        let requestAuthority = request.authority ?? authority
        let prefix = basePath(baseURL)
        var path = request.path ?? "/"
        var base = baseURL
        if requestScheme == scheme, requestAuthority == authority, !prefix.isEmpty, path.hasPrefix(prefix) {
            path.removeFirst(prefix.count)
        } else if requestScheme != scheme || requestAuthority != authority || !prefix.isEmpty {
            base = URL(string: "\(requestScheme)://\(requestAuthority)")!
        }
        request.scheme = nil
        request.authority = nil
        request.path = path
        return (request, base)
    }
}
