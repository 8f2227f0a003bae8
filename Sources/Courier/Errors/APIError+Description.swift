import Foundation

extension APIError: CustomStringConvertible, LocalizedError {
    /// The number of body bytes quoted in descriptions.
    static let bodyPrefixLength = 200

    /// One readable line: what failed, for which request, and why. Control characters a server
    /// may have sent (in its message, its body, a content type or a `Location`) are escaped
    /// (``LogSafeText``), so a description cannot forge a log line or drive a terminal.
    public var description: String { LogSafeText.escape(unescapedDescription) }

    private var unescapedDescription: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "Invalid URL '\(url)': \(reason)"
        case .encodingFailed(let request, let error):
            return "Could not encode \(request): \(error)"
        case .httpError(let status, let message, _, let body, let request):
            var line = "HTTP \(status) for \(request)"
            if let message, !message.isEmpty { line += ": \(message)" }
            if !body.isEmpty { line += " — body: \(Self.prefix(of: body))" }
            return line
        case .decodingFailed(let request, let type, let error, let body):
            return "Could not decode \(type) from the response to \(request): \(Self.describe(decodingError: error))"
                + (body.isEmpty ? " — body is empty" : " — body: \(Self.prefix(of: body))")
        case .unexpectedContentType(let request, let expected, let received):
            return "Unexpected content type \(received.map { "'\($0)'" } ?? "(none)") for \(request); expected \(expected.joined(separator: " or "))"
        case .timeout(let request, let after):
            return "Timed out after \(after) waiting for \(request)"
        case .resourceTooLarge(let request, let limit):
            return "Response to \(request) is larger than the limit of \(limit) bytes; the exchange was cancelled"
        case .network(let request, let error):
            return "Network failure for \(request): \(error)"
        case .cancelled(let request):
            return "Cancelled" + (request.map { ": \($0)" } ?? "")
        case .unknown(let request, let error):
            return "Unexpected failure" + (request.map { " for \($0)" } ?? "") + ": \(error)"
        }
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }

    /// The first bytes of a body as text (UTF-8, invalid bytes replaced, control characters
    /// escaped), with an ellipsis when cut.
    static func prefix(of body: Data) -> String {
        let cut = body.prefix(bodyPrefixLength)
        let text = LogSafeText.escape(String(decoding: cut, as: UTF8.self))
        return body.count > bodyPrefixLength ? text + "…" : text
    }

    /// A `DecodingError` as one line with its coding path (`users[2].email`).
    static func describe(decodingError error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for key in keys {
                if let index = key.intValue { out += "[\(index)]" } else { out += out.isEmpty ? key.stringValue : ".\(key.stringValue)" }
            }
            return out.isEmpty ? "<root>" : out
        }
        switch error {
        case .typeMismatch(let type, let ctx):
            return "type mismatch at \(path(ctx.codingPath)): expected \(type) — \(ctx.debugDescription)"
        case .valueNotFound(let type, let ctx):
            return "missing value at \(path(ctx.codingPath)): expected \(type)"
        case .keyNotFound(let key, let ctx):
            return "missing key '\(key.stringValue)' at \(path(ctx.codingPath))"
        case .dataCorrupted(let ctx):
            return "data corrupted at \(path(ctx.codingPath)): \(ctx.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
