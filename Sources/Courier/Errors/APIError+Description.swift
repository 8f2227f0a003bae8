import Foundation
import HTTPTypes

extension APIError: CustomStringConvertible, LocalizedError {
    /// The number of body bytes quoted in descriptions.
    static let bodyPrefixLength = 200

    /// One readable line: what failed, for which request, and why. Control characters a server
    /// may have sent (in its message, its body, a content type or a `Location`) are escaped
    /// so a description cannot forge a log line or drive a terminal.
    public var description: String {
        let line = LogSafeText.escape(unescapedDescription)
        if let uploadResumeToken {
            return line + " — resumable: \(uploadResumeToken.acknowledgedBytes) of \(uploadResumeToken.totalBytes) bytes kept on the server"
        }
        guard let resumeToken else { return line }
        return line + " — resumable: \(resumeToken.bytesOnDisk) of \(resumeToken.totalBytes) bytes kept in \(LogSafeText.escape(resumeToken.partialFileName))"
    }

    private var unescapedDescription: String {
        let target = request.map { " for \($0)" } ?? ""
        switch detail {
        case .invalidURL(let url):
            return "Invalid URL '\(url)': \(message ?? "not allowed")"
        case .http(let response):
            var line = "HTTP \(response.status.code)\(target)"
            if let message, !message.isEmpty { line += ": \(message)" }
            if !body.isEmpty { line += " — body: \(Self.prefix(of: body))" }
            return line
        case .decoding(let type):
            let cause = underlyingError.map { Self.describe(decodingError: $0) } ?? "invalid body"
            return "Could not decode \(type) from the response\(request.map { " to \($0)" } ?? ""): \(cause)"
                + (body.isEmpty ? " — body is empty" : " — body: \(Self.prefix(of: body))")
        case .contentType(let expected, let received):
            return "Unexpected content type \(received.map { "'\($0)'" } ?? "(none)")\(target); expected \(expected.joined(separator: " or "))"
        case .timeout(let after, let waitingFor):
            if let waitingFor { return "Timed out after \(after) \(waitingFor)\(target)" }
            return "Timed out after \(after) waiting for \(request.map { "\($0)" } ?? "the response")"
        case .limit(let limit):
            return "Response\(request.map { " to \($0)" } ?? "") is larger than the limit of \(limit) bytes; the exchange was cancelled"
        case .invalid(let response):
            let status = response.map { " (HTTP \($0.status.code))" } ?? ""
            let cause = underlyingError.map { ": \(Self.bounded(UnderlyingErrorText.describe($0), to: 1_000))" } ?? ""
            return "Invalid response\(status)\(request.map { " to \($0)" } ?? "")\(cause)"
        case .none:
            break
        }
        let cause = underlyingError.map { ": \(Self.bounded(UnderlyingErrorText.describe($0), to: 1_000))" } ?? (message.map { ": \($0)" } ?? "")
        switch kind {
        case .encodingFailed: return "Could not encode\(request.map { " \($0)" } ?? " the request")\(cause)"
        case .network: return "Network failure\(target)\(cause)"
        case .authentication: return "Could not authenticate\(request.map { " \($0)" } ?? " the request")\(cause)"
        case .cancelled: return "Cancelled" + (request.map { ": \($0)" } ?? "")
        default: return "Unexpected failure\(target)\(cause)"
        }
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }

    /// The first bytes of a body as text (UTF-8, invalid bytes replaced, secret JSON members
    /// and form fields redacted, control characters escaped), with an ellipsis when cut.
    static func prefix(of body: Data) -> String {
        let cut = body.prefix(bodyPrefixLength)
        let text = LogSafeText.escape(Redaction.BodyText.redact(String(decoding: cut, as: UTF8.self)))
        return body.count > bodyPrefixLength ? text + "…" : text
    }

    /// A `DecodingError` as one line with its coding path (`users[2].email`). The server's
    /// words in it — keys of the path, the value a message quotes (`Cannot initialize Status
    /// from invalid String value …`) — are cut (``bounded(_:to:)``): a server can make them
    /// megabytes long.
    static func describe(decodingError error: any Error) -> String {
        guard let error = error as? DecodingError else { return bounded("\(error)", to: 1_000) }
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for key in keys {
                let name = bounded(key.stringValue, to: 100)
                if let index = key.intValue { out += "[\(index)]" } else { out += out.isEmpty ? name : ".\(name)" }
                if out.unicodeScalars.count > 500 { return bounded(out, to: 500) }
            }
            return out.isEmpty ? "<root>" : out
        }
        switch error {
        case .typeMismatch(let type, let ctx):
            return "type mismatch at \(path(ctx.codingPath)): expected \(type) — \(bounded(ctx.debugDescription, to: 300))"
        case .valueNotFound(let type, let ctx):
            return "missing value at \(path(ctx.codingPath)): expected \(type)"
        case .keyNotFound(let key, let ctx):
            return "missing key '\(bounded(key.stringValue, to: 100))' at \(path(ctx.codingPath))"
        case .dataCorrupted(let ctx):
            return "data corrupted at \(path(ctx.codingPath)): \(bounded(ctx.debugDescription, to: 300))"
        @unknown default:
            return bounded("\(error)", to: 1_000)
        }
    }

    /// `text`'s first `limit` Unicode scalars, with an ellipsis when cut. Scalars, not
    /// characters: one character can hold any number of combining marks.
    static func bounded(_ text: String, to limit: Int) -> String {
        var end = text.unicodeScalars.startIndex
        var count = 0
        while end != text.unicodeScalars.endIndex, count < limit {
            text.unicodeScalars.formIndex(after: &end)
            count += 1
        }
        guard end != text.unicodeScalars.endIndex else { return text }
        return String(text.unicodeScalars[..<end]) + "…"
    }
}
