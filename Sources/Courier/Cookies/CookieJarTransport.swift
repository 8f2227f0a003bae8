import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Puts a ``CookieJar`` between the redirect follower and the transport, so the jar sees every
/// hop: each request gets the cookies RFC 6265 allows for *its* URL, and each response's
/// `Set-Cookie` headers are stored — a redirect's too — before the next hop is sent.
///
/// It also tells the transport (``RequestContext/usesCookieJar``) that the jar decides, so a
/// transport with a cookie store of its own (URLSession's) leaves cookies alone.
struct CookieJarTransport: Transport {
    let base: any Transport
    let jar: CookieJar

    func send(_ request: HTTPRequest, body: HTTPBody?, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        var context = context
        context.usesCookieJar = true
        guard let url = CookieRequestURL(request) else {
            return try await base.send(request, body: body, context: context)
        }
        var request = request
        let added = Self.addCookies(from: jar, for: url, to: &request.headerFields)
        for watch in context.cookieWatches { watch.jarAdded(added) }
        let (response, responseBody) = try await base.send(request, body: body, context: context)
        // A head the client will refuse stores nothing: 65,000 `Set-Cookie` fields are not worth
        // the jar's time.
        try TransportError.checkFieldCount(of: response)
        var setCookies: [String] = []
        for field in response.headerFields where field.name == .setCookie { setCookies.append(field.value) }
        if !setCookies.isEmpty {
            jar.receive(setCookies, from: url, logger: context.logger)
        }
        return (response, responseBody)
    }

    /// Adds the jar's cookies to the request's `Cookie` header: the request's own cookies first,
    /// then the jar's, skipping names the request already set; one `Cookie` field in all
    /// (RFC 6265 §5.4: a user agent sends at most one). Returns what the jar added (`nil`: none).
    @discardableResult
    static func addCookies(from jar: CookieJar, for url: CookieRequestURL, to fields: inout HTTPFields) -> String? {
        let (own, names) = ownCookies(in: fields)
        let added = jar.cookieHeader(for: url, skipping: names)
        guard added != nil || own.count > 1 else { return added }
        let header = (own + (added.map { [$0] } ?? [])).joined(separator: "; ")
        fields[.cookie] = nil
        fields.appendIfRoom(HTTPField(name: .cookie, value: header))
        return added
    }

    /// The request's own `Cookie` field values, and the names of the cookies they set (which
    /// the jar does not add again).
    static func ownCookies(in fields: HTTPFields) -> (values: [String], names: Set<Substring>) {
        // Read the fields themselves: `HTTPFields`' subscripts split a Cookie value at "; ", and
        // its setter stores one field per cookie (HTTP/2 style), which an HTTP/1.1 transport
        // would send as as many `Cookie` lines.
        let own = fields.filter { $0.name == .cookie }.map(\.value)
        var names = Set<Substring>()
        for value in own {
            // RFC 6265's cookie-string: `;`-separated pairs, no quoted strings.
            for pair in HTTPParameters(value, separator: ";", quoting: .none) {
                names.insert(pair.name)
            }
        }
        return (own, names)
    }
}

extension CookieJar {
    /// The cookies this jar will add to `request` when it reaches the wire
    /// (``CookieJarTransport``, the same cookies, the request's own names skipped), looked up
    /// without marking them used; `nil` when none apply. What a middleware above the jar tells
    /// cookie sessions apart by: ``CoalescingMiddleware``'s key, ``CachingMiddleware``'s.
    func cookies(addedTo request: HTTPRequest) -> String? {
        guard let url = CookieRequestURL(request) else { return nil }
        return cookieHeader(for: url, skipping: CookieJarTransport.ownCookies(in: request.headerFields).names, touching: false)
    }
}
