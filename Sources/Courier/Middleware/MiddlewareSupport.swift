import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Small helpers shared by Courier's middleware (and the signing, metrics and tracing modules).
package enum MiddlewareSupport {
    /// The most bytes read from a response that is dropped before a retry, so the connection can
    /// be reused; a longer body is abandoned and the transport closes the connection.
    package static let drainLimit = 64 * 1024

    /// Whether `body` can be sent again: no body, or one that can be iterated more than once.
    package static func isReplayable(_ body: HTTPBody?) -> Bool {
        guard let body else { return true }
        return body.iterationBehavior == .multiple
    }

    /// Reads and drops up to ``drainLimit`` bytes of a response body that will not be used.
    package static func drain(_ body: HTTPBody?) async {
        guard let body else { return }
        var seen = 0
        do {
            for try await chunk in body {
                seen += chunk.count
                if seen > drainLimit { return }
            }
        } catch {}
    }

    /// The bytes of a body that can be iterated again, up to `limit` bytes (`nil` when the body
    /// is single-pass, so it is never consumed, or longer than `limit`).
    package static func replayableBytes(_ body: HTTPBody?, limit: Int) async throws -> Data? {
        guard let body else { return Data() }
        guard body.iterationBehavior == .multiple else { return nil }
        if case .known(let length) = body.length, length > limit { return nil }
        var data = Data()
        for try await chunk in body {
            data.append(contentsOf: chunk)
            if data.count > limit { return nil }
        }
        return data
    }

    /// The first `limit` bytes of a replayable body, and whether there was more. `nil` for a
    /// single-pass body, which is never touched.
    package static func prefix(of body: HTTPBody?, limit: Int) async -> (Data, truncated: Bool)? {
        guard let body, body.iterationBehavior == .multiple else { return nil }
        var data = Data()
        do {
            for try await chunk in body {
                data.append(contentsOf: chunk.prefix(limit - data.count))
                if data.count >= limit { return (data, true) }
            }
        } catch {
            return nil
        }
        return (data, false)
    }

    /// The path of a request target, without its query.
    package static func path(of request: HTTPRequest) -> String {
        let target = request.path ?? "/"
        guard let mark = target.firstIndex(of: "?") else { return target }
        return String(target[..<mark])
    }

    /// The encoded query of a request target, without the `?` (`nil` when there is none).
    package static func query(of request: HTTPRequest) -> String? {
        let target = request.path ?? "/"
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: mark)...])
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

    /// The request's absolute URL with secret query values redacted, plus any `extra` names.
    package static func redactedURL(_ request: HTTPRequest, extraQueryNames: Set<String> = []) -> String {
        let origin = "\(request.scheme ?? "https")://\(request.authority ?? "")"
        let names = extraQueryNames.isEmpty ? Redaction.QueryNames.standard : Redaction.QueryNames.standard.adding(extraQueryNames)
        return origin + names.redact(target: request.path ?? "/")
    }
}
