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
        Self.addCookies(from: jar, for: url, to: &request.headerFields)
        let (response, responseBody) = try await base.send(request, body: body, context: context)
        let setCookies = response.headerFields[values: .setCookie]
        if !setCookies.isEmpty {
            jar.receive(setCookies, from: url, logger: context.logger)
        }
        return (response, responseBody)
    }

    /// Adds the jar's cookies to the request's `Cookie` header: the request's own cookies first,
    /// then the jar's, skipping names the request already set; one `Cookie` field in all.
    static func addCookies(from jar: CookieJar, for url: CookieRequestURL, to fields: inout HTTPFields) {
        let own = fields[values: .cookie]
        if own.isEmpty {
            if let header = jar.cookieHeader(for: url) { fields[.cookie] = header }
            return
        }
        let ownHeader = own.joined(separator: "; ")
        var names = Set<Substring>()
        for pair in ownHeader.split(separator: ";") {
            var name = pair.prefix { $0 != "=" }
            while name.first == " " || name.first == "\t" { name = name.dropFirst() }
            while name.last == " " || name.last == "\t" { name = name.dropLast() }
            names.insert(name)
        }
        guard let header = jar.cookieHeader(for: url, skipping: names) else { return }
        fields[.cookie] = ownHeader + "; " + header
    }
}
