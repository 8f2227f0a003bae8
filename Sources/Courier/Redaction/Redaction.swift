import Foundation
import HTTPTypes

/// The rules Courier uses to keep secrets out of errors, logs and recordings.
public enum Redaction {
    /// The text that replaces a secret.
    public static let placeholder = "<redacted>"

    /// Header names whose values are always secret: redacted in logs, errors and recordings, and
    /// removed when a redirect leaves the origin. Together with the names that look secret
    /// (``sensitiveNameFragments``: `X-Auth-Token`, `X-Amz-Security-Token`, `X-Signature`…) this is
    /// Courier's one list; add names of your own with ``APIConfiguration/sensitiveHeaders``.
    ///
    /// It covers what OkHttp, curl, Go's `net/http` and urllib3 strip on a cross-origin redirect
    /// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Cookie2`), the common API-key headers
    /// (`X-Api-Key`, `Api-Key`, Azure's `Ocp-Apim-Subscription-Key` and `X-Functions-Key`,
    /// `X-Goog-Api-Key`), and short signature and ticket headers (`Sign`, `X-Sign`, `Ticket`, `X-Ticket`,
    /// and the user documents' `pub_sign` and `pub_ticket`).
    public static let sensitiveHeaders: Set<HTTPField.Name> = [
        .authorization, .proxyAuthorization, .cookie, .setCookie, HTTPField.Name("Cookie2")!,
        HTTPField.Name("X-Api-Key")!, HTTPField.Name("Api-Key")!, HTTPField.Name("X-Auth-Token")!,
        HTTPField.Name("X-Goog-Api-Key")!, HTTPField.Name("Ocp-Apim-Subscription-Key")!, HTTPField.Name("X-Functions-Key")!,
        HTTPField.Name("Sign")!, HTTPField.Name("X-Sign")!, HTTPField.Name("Ticket")!, HTTPField.Name("X-Ticket")!,
        // APIs that sign their parameters send the signature and ticket as headers too.
        HTTPField.Name("pub_sign")!, HTTPField.Name("pub_ticket")!, HTTPField.Name("Pub-Sign")!, HTTPField.Name("Pub-Ticket")!,
    ]

    /// Substrings that mark a query parameter or header name as secret (compared lowercased):
    /// `token` (`X-Auth-Token`, `X-Amz-Security-Token`, `X-CSRF-Token`), `signature`
    /// (`X-Signature`, `X-Hub-Signature`), `authorization` (`X-Ms-Authorization`), and the like.
    public static let sensitiveNameFragments: [String] = [
        "token", "secret", "password", "passwd", "passphrase", "api_key", "apikey", "api-key", "access_key", "access-key",
        "auth_key", "auth-key", "private_key", "private-key", "signature", "session", "credential", "authorization",
    ]

    /// Whether a parameter or header name looks like it carries a secret: whether its lowercased
    /// form contains one of ``sensitiveNameFragments``.
    public static func isSensitive(name: String) -> Bool {
        var name = name
        // Header names are ASCII, and this runs for every header of every request a cache keys or
        // a redirect checks: compare the UTF-8 bytes, ASCII-lowercased on the fly, without
        // allocating. Foundation's `lowercased()` + `contains` cost ≈ 16 % of a cache hit.
        // A name with non-ASCII bytes (a percent-decoded query name) takes the Unicode path, where
        // lowercasing can turn a non-ASCII letter (the Kelvin sign) into an ASCII one.
        if let ascii = name.withUTF8({ SensitiveNameFragments.matchASCII($0) }) { return ascii }
        let lower = name.lowercased()
        return sensitiveNameFragments.contains { lower.contains($0) }
    }

    /// Whether a header's value must not be shown.
    public static func isSensitive(header name: HTTPField.Name, extra: Set<HTTPField.Name> = []) -> Bool {
        // `extra` is usually empty, and an empty set still hashes the name it is asked about.
        sensitiveHeaders.contains(name) || (!extra.isEmpty && extra.contains(name)) || isSensitive(name: name.canonicalName)
    }

    /// A request target (`/path?query`) with the values of sensitive query parameters
    /// (``QueryNames/standard``) redacted.
    public static func redactQuery(inTarget target: String) -> String {
        QueryNames.standard.redact(target: target)
    }

    /// A URL string with `user:password@` removed and sensitive query values redacted, for
    /// showing URLs that came from elsewhere (a `Location` header, a configuration file).
    public static func redactURL(_ url: String) -> String {
        QueryNames.standard.redact(url: url)
    }

    /// A copy of `fields` with sensitive values replaced by the placeholder, and the URLs in
    /// `Location`, `Content-Location` and `Link` with their secret query values (by
    /// `queryNames`) and user info replaced — a server that echoes a request's query in a
    /// next-page link or a redirect echoes its credentials too.
    public static func redact(_ fields: HTTPFields, extra: Set<HTTPField.Name> = [], queryNames: QueryNames = .standard) -> HTTPFields {
        var out = HTTPFields()
        for field in fields {
            if isSensitive(header: field.name, extra: extra) {
                out.append(HTTPField(name: field.name, value: placeholder))
            } else if field.name == .location || field.name == contentLocation {
                out.append(HTTPField(name: field.name, value: queryNames.redact(url: field.value)))
            } else if field.name == link {
                out.append(HTTPField(name: field.name, value: redactLinkTargets(field.value, queryNames: queryNames)))
            } else {
                out.append(field)
            }
        }
        return out
    }

    private static let contentLocation = HTTPField.Name("Content-Location")!
    private static let link = HTTPField.Name("Link")!

    /// A `Link` value (RFC 8288) with each `<target>` redacted as a URL; parameters untouched.
    private static func redactLinkTargets(_ value: String, queryNames: QueryNames) -> String {
        guard value.containsByte(UInt8(ascii: "?")) else { return value }
        var out = ""
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<") {
            out += rest[...open]
            let inside = rest[rest.index(after: open)...]
            let close = inside.firstIndex(of: ">") ?? inside.endIndex
            out += queryNames.redact(url: String(inside[..<close]))
            rest = inside[close...]
        }
        return out + rest
    }
}
