import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The request target (`path?query`) of an `HTTPRequest`, read and changed: its path, its query
/// items, appending and removing items, and the URL with secret values redacted. Shared by the
/// middleware and the signing, metrics and tracing modules; body helpers are in ``BodyReading``.
package enum RequestTarget {
    /// The path of a request target, without its query.
    package static func path(of request: HTTPRequest) -> String {
        let target = request.path ?? "/"
        // The UTF-8 view: a Character search does grapheme breaking over the whole target.
        guard let mark = target.firstIndex(ofByte: UInt8(ascii: "?")) else { return target }
        return String(target[..<mark])
    }

    /// The encoded query of a request target, without the `?` (`nil` when there is none).
    package static func query(of request: HTTPRequest) -> String? {
        let target = request.path ?? "/"
        guard let mark = target.firstIndex(ofByte: UInt8(ascii: "?")) else { return nil }
        return String(target[target.utf8.index(after: mark)...])
    }

    /// The decoded query items of a request, in order (`+` is kept as is, as RFC 3986 says).
    package static func queryItems(of request: HTTPRequest) -> [URLQueryItem] {
        guard let query = query(of: request), !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : nil
            return URLQueryItem(name: name, value: value)
        }
    }

    /// Adds query items to the end of a request's target, percent-encoded.
    package static func appendQuery(_ items: [URLQueryItem], to request: inout HTTPRequest) {
        guard !items.isEmpty else { return }
        let encoded = QueryEncoding.encode(items)
        let target = request.path ?? "/"
        if target.hasSuffix("?") || target.hasSuffix("&") {
            request.path = target + encoded
        } else {
            request.path = target + (target.contains("?") ? "&" : "?") + encoded
        }
    }

    /// Removes the query items named `name` (compared decoded) from a request's target; the
    /// other items stay byte for byte. A middleware that adds a credential or a signature to the
    /// query removes a stale one first: a next-page link that echoes the query carries it.
    package static func removeQueryItems(named name: String, from request: inout HTTPRequest) {
        let target = request.path ?? "/"
        let stripped = removingQueryItems(named: [name], from: target)
        if stripped != target { request.path = stripped }
    }

    /// `reference` — a request target or an absolute URL — without the query items whose
    /// decoded names are in `names`; the other items, the path and a fragment stay byte for
    /// byte, and the `?` goes when no item is left. The one implementation behind
    /// ``removeQueryItems(named:from:)`` and the next-page links that pagination follows.
    package static func removingQueryItems(named names: Set<String>, from reference: String) -> String {
        guard !names.isEmpty, let mark = reference.firstIndex(ofByte: UInt8(ascii: "?")) else { return reference }
        let queryStart = reference.utf8.index(after: mark)
        let fragmentStart = reference.utf8[queryStart...].firstIndex(of: UInt8(ascii: "#")) ?? reference.endIndex
        let pairs = reference[queryStart..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false)
        let kept = pairs.filter { pair in
            let rawName = String(pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0])
            return !names.contains(rawName.removingPercentEncoding ?? rawName)
        }
        guard kept.count != pairs.count else { return reference }
        let query = kept.isEmpty ? "" : "?" + kept.joined(separator: "&")
        return String(reference[..<mark]) + query + reference[fragmentStart...]
    }

    /// The request's absolute URL with secret query values redacted, plus any `extra` names.
    package static func redactedURL(_ request: HTTPRequest, extraQueryNames: Set<String> = []) -> String {
        let names = extraQueryNames.isEmpty ? Redaction.QueryNames.standard : Redaction.QueryNames.standard.adding(extraQueryNames)
        return request.urlString(redactingQuery: names)
    }
}
