import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A request as a `curl` command line, for reproducing it in a terminal or pasting it into a
/// bug report — secrets redacted unless you ask for them.
///
/// ```swift
/// let curl = try await client.curlCommand(for: GetUser(id: "42"))
/// // curl -X GET 'https://api.example.com/v1/users/42' -H 'Accept: application/json' -H 'Authorization: <redacted>'
/// ```
///
/// Every argument is single-quoted for POSIX shells (a `'` inside becomes `'\''`), so a value
/// cannot break out of its argument. Header values and query values whose names look secret
/// (``Redaction``) are replaced with `<redacted>`; so are the ones you list. A text body is
/// given with `--data-binary`; a binary or unknown-length body is described in a trailing
/// comment instead.
public struct CurlCommand: Sendable, CustomStringConvertible {
    /// The command line.
    public let description: String

    /// The command for `request` and its body (`nil` for none, or for a streamed body that was
    /// not read: the command then says so).
    ///
    /// - Parameters:
    ///   - request: the request head (method, URL, header fields).
    ///   - body: the body's bytes, when they are in memory.
    ///   - revealingSecrets: `true` to keep secret header and query values (for your own
    ///     terminal only; never log the result).
    ///   - sensitiveHeaders: header names to redact beside Courier's list.
    ///   - sensitiveQueryNames: query names to redact beside Courier's list.
    ///   - bodyIsStreamed: the request has a body that was not read.
    public init(
        _ request: HTTPRequest, body: Data? = nil, revealingSecrets: Bool = false,
        sensitiveHeaders: Set<HTTPField.Name> = [], sensitiveQueryNames: Set<String> = [],
        bodyIsStreamed: Bool = false
    ) {
        self.init(request, body: body, revealingSecrets: revealingSecrets, sensitiveHeaders: sensitiveHeaders,
                  sensitiveQueryNames: sensitiveQueryNames, note: bodyIsStreamed && body == nil ? "streamed body not shown" : nil)
    }

    /// The command for `request`, redacted as asked, with `note` as its trailing comment.
    init(_ request: HTTPRequest, body: Data?, revealingSecrets: Bool, sensitiveHeaders: Set<HTTPField.Name>,
         sensitiveQueryNames: Set<String>, note: String?) {
        let target = request.path ?? "/"
        let names = sensitiveQueryNames.isEmpty ? Redaction.QueryNames.standard : Redaction.QueryNames.standard.adding(sensitiveQueryNames)
        let url = request.originString + (revealingSecrets ? target : names.redact(target: target))
        let headers = revealingSecrets ? request.headerFields : Redaction.redact(request.headerFields, extra: sensitiveHeaders)
        self.init(method: request.method.rawValue, url: url, headers: headers, body: body, note: note)
    }

    /// The largest in-memory body a command pastes (1 MiB); a larger one is described instead.
    static let maxPastedBodySize = 1 << 20

    /// The command from parts that are already redacted (the logging transcript's).
    init(method: String, url: String, headers: HTTPFields, body: Data?, note: String?) {
        var parts = ["curl", "-X", Self.quote(method), Self.quote(url)]
        for field in headers {
            parts.append("-H")
            parts.append(Self.quote("\(field.name.rawName): \(field.value)"))
        }
        var comment = note
        if let body, !body.isEmpty {
            if let text = String(data: body, encoding: .utf8),
               !text.unicodeScalars.contains(where: { $0.value < 0x20 && !["\n", "\r", "\t"].contains($0) }) {
                parts.append("--data-binary")
                parts.append(Self.quote(text))
            } else {
                comment = "binary body of \(body.count) bytes not shown"
            }
        }
        description = parts.joined(separator: " ") + (comment.map { " # " + $0 } ?? "")
    }

    /// `value` single-quoted for a POSIX shell.
    static func quote(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
