import Foundation
import HTTPTypes
import Logging

extension LoggingMiddleware {
    /// Everything known about one exchange, already redacted, and how to print it.
    struct Transcript: Sendable {
        let url: String
        let method: String
        let operation: String
        let attempt: Int
        var redactedNames: Set<String> = []
        var requestHeaders = HTTPFields()
        var requestBody: (Data, truncated: Bool)?
        var bodyIsStreamed = false
        var response: HTTPResponse?
        var responseHeaders = HTTPFields()
        var duration: Duration = .zero
        var outcome: ObservedBody.Outcome?
        var error: (any Error)?
        /// Metadata of the task's logger, added under Courier's own keys.
        var ambientMetadata: Logger.Metadata = [:]

        /// The line's metadata. Sized for Courier's keys up front (growing the dictionary
        /// rehashes every key) and set as `.string` values without an interpolation each.
        var metadata: Logger.Metadata { metadata(with: figures) }

        /// The status code, the duration in milliseconds and the body's size as text: the
        /// summary line and its metadata both show them, so the logged path writes them once
        /// (``figures`` for both, rather than integers turned into text twice and the status and
        /// the duration read twice).
        ///
        /// They carry the exchange's end too (`outcome`, whether it was timed), so that the
        /// summary of a body's end is written from a shared transcript without copying it.
        struct Figures {
            var status: String?
            var milliseconds: String
            var bytes: String?
            var outcome: ObservedBody.Outcome?
            /// Whether the line shows a duration (a response or an error came back, or time was measured).
            var timed: Bool
        }

        /// This exchange's ``Figures``.
        var figures: Figures { figures(duration: duration, outcome: outcome) }

        /// The ``Figures`` of this exchange ended after `duration` with `outcome`.
        func figures(duration: Duration, outcome: ObservedBody.Outcome?) -> Figures {
            Figures(status: response.map { String($0.status.code) }, milliseconds: String(Int((duration.secondsValue * 1000).rounded())),
                    bytes: outcome.map { String($0.bytes) }, outcome: outcome, timed: duration > .zero || response != nil || error != nil)
        }

        /// ``metadata`` with `figures` written already.
        func metadata(with figures: Figures) -> Logger.Metadata {
            if ambientMetadata.isEmpty, attempt <= 1, let status = figures.status, let bytes = figures.bytes, response?.cacheOutcome == nil {
                // The usual line: a response whose body ended, first attempt, no cache, no task metadata.
                return SummaryMetadata.shared.filled(method: method, url: url, operation: operation, status: status,
                                                     milliseconds: figures.milliseconds, bytes: bytes)
            }
            var metadata = ambientMetadata
            metadata.reserveCapacity(ambientMetadata.count + 8)
            metadata["http.request.method"] = .string(method)
            metadata["url.full"] = .string(url)
            metadata["courier.operation"] = .string(operation)
            if attempt > 1 { metadata["courier.attempt"] = .string(String(attempt)) }
            if let status = figures.status { metadata["http.response.status_code"] = .string(status) }
            if figures.timed { metadata["courier.duration_ms"] = .string(figures.milliseconds) }
            if let bytes = figures.bytes { metadata["http.response.body.size"] = .string(bytes) }
            if let cache = response?.cacheOutcome { metadata["courier.cache"] = .string(cache.rawValue) }
            return metadata
        }

        /// The metadata of the usual summary line, built once with its six keys; each line
        /// copies it and replaces the values at positions found once. Built per line, the
        /// dictionary hashed six keys and was allocated through the runtime's generic metadata,
        /// for every request.
        struct SummaryMetadata: Sendable {
            let template: Logger.Metadata
            let method, url, operation, status, milliseconds, bytes: Logger.Metadata.Index

            static let shared = SummaryMetadata()

            private init() {
                let template: Logger.Metadata = [
                    "http.request.method": "", "url.full": "", "courier.operation": "",
                    "http.response.status_code": "", "courier.duration_ms": "", "http.response.body.size": "",
                ]
                self.template = template
                method = template.index(forKey: "http.request.method")!
                url = template.index(forKey: "url.full")!
                operation = template.index(forKey: "courier.operation")!
                status = template.index(forKey: "http.response.status_code")!
                milliseconds = template.index(forKey: "courier.duration_ms")!
                bytes = template.index(forKey: "http.response.body.size")!
            }

            /// The template with these values. Positions stay valid in a copy, and replacing a
            /// value leaves the keys where they are.
            func filled(method: String, url: String, operation: String, status: String, milliseconds: String, bytes: String) -> Logger.Metadata {
                var metadata = template
                metadata.values[self.method] = .string(method)
                metadata.values[self.url] = .string(url)
                metadata.values[self.operation] = .string(operation)
                metadata.values[self.status] = .string(status)
                metadata.values[self.milliseconds] = .string(milliseconds)
                metadata.values[self.bytes] = .string(bytes)
                return metadata
            }
        }

        /// `GET https://… → 200 (41 ms, 1532 bytes)`
        func summary() -> String { summary(with: figures) }

        /// ``summary()`` with `figures` written already.
        func summary(with figures: Figures) -> String {
            guard let response, let status = figures.status else { return "\(method) \(url) failed after \(figures.milliseconds) ms: \(Self.describe(error))" }
            // Joined with one allocation (`String(concatenating:)`): appending its dozen parts with
            // `+=` checks and grows the buffer at each part, even one reserved up front.
            var parts = [method, " ", url, " → ", status, " (", figures.milliseconds, " ms, ", figures.bytes ?? "0", " bytes"]
            if figures.outcome?.abandoned == true { parts.append(", body not read to the end") }
            if let error = figures.outcome?.error { parts.append(", body failed: \(Self.describe(error))") }
            if let cache = response.cacheOutcome { parts.append(", cache \(cache.rawValue)") }
            parts.append(")")
            return String(concatenating: parts)
        }

        func requestLines(emoji: Bool) -> String {
            var lines = [emoji ? "🚀 API Request: \(method) \(url) [\(operation)\(attempt > 1 ? ", attempt \(attempt)" : "")]" : "→ \(method) \(url)"]
            lines.append((emoji ? "📋 Headers: " : "  headers: ") + Self.format(requestHeaders))
            if let (data, truncated) = requestBody, !data.isEmpty {
                lines.append((emoji ? "📤 Body: " : "  body: ") + format(data, truncated: truncated))
            } else if bodyIsStreamed {
                lines.append(emoji ? "📤 Body: (streamed, not shown)" : "  body: (streamed, not shown)")
            }
            return lines.joined(separator: "\n")
        }

        func responseLines(emoji: Bool) -> String {
            guard let response else { return "" }
            var lines = [emoji ? "📋 Response headers: " + Self.format(responseHeaders) : "← \(response.status.code) headers: " + Self.format(responseHeaders)]
            if let outcome, !outcome.prefix.isEmpty {
                lines.append((emoji ? "📄 Response Data: " : "  body: ") + format(outcome.prefix, truncated: outcome.bytes > outcome.prefix.count))
            }
            return lines.joined(separator: "\n")
        }

        /// The verbose transcript, with emoji markers (🚀 request, ✅/❌ response).
        func verboseText() -> String {
            var lines = [requestLines(emoji: true), "🧾 cURL: " + curlCommand()]
            guard let response else {
                lines.append("💥 Failed after \(Self.format(duration)): \(Self.describe(error))")
                return lines.joined(separator: "\n")
            }
            let mark = response.status.code < 400 ? "✅" : "❌"
            lines.append("\(mark) API Response: \(response.status.code) \(Self.reason(response.status)) (\(Self.format(duration)))")
            lines.append("📦 Response Size: \(Self.format(bytes: outcome?.bytes ?? 0))")
            lines.append(responseLines(emoji: true))
            if let error = outcome?.error { lines.append("💥 Body failed: \(Self.describe(error))") }
            return lines.joined(separator: "\n")
        }

        /// The request as a `curl` command, secrets redacted as in the rest of the transcript.
        /// Escaped like every log line: a value cannot start a line of its own.
        func curlCommand() -> String {
            var body: Data?
            var note: String?
            if let (data, truncated) = requestBody, !data.isEmpty {
                body = data
                if truncated { note = "body cut at the log's limit" }
            } else if bodyIsStreamed {
                note = "streamed body not shown"
            }
            if let text = body.map({ String(decoding: $0, as: UTF8.self) }) {
                body = Data(Redaction.BodyText.redact(text, extra: redactedNames).utf8)
            }
            return LogSafeText.escape(CurlCommand(method: method, url: url, headers: requestHeaders, body: body, note: note).description)
        }

        /// An error as one escaped line (its text may quote a server).
        static func describe(_ error: (any Error)?) -> String {
            LogSafeText.escape(error.map { "\($0)" } ?? "unknown error")
        }

        static func reason(_ status: HTTPResponse.Status) -> String {
            if !status.reasonPhrase.isEmpty { return LogSafeText.escape(status.reasonPhrase) }
            let common: [Int: String] = [
                200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently", 302: "Found",
                304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
                408: "Request Timeout", 409: "Conflict", 422: "Unprocessable Content", 429: "Too Many Requests",
                500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
            ]
            return common[status.code] ?? ""
        }

        static func format(_ fields: HTTPFields) -> String {
            fields.isEmpty ? "(none)" : fields.map { "\($0.name.rawName): \(LogSafeText.escape($0.value))" }.joined(separator: ", ")
        }

        func format(_ data: Data, truncated: Bool) -> String {
            let text = String(decoding: data, as: UTF8.self)
            let binary = text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" }
            // Line breaks in a body are escaped too: a server's body must not start a log line.
            let shown = binary ? "<\(data.count) bytes of binary data>" : LogSafeText.escape(Redaction.BodyText.redact(text, extra: redactedNames))
            return truncated ? shown + "… (truncated)" : shown
        }

        static func format(_ duration: Duration) -> String {
            let seconds = duration.secondsValue
            return seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%.2fs", seconds)
        }

        static func format(bytes: Int) -> String {
            bytes < 1024 ? "\(bytes) B" : String(format: "%.1f KB", Double(bytes) / 1024)
        }
    }
}
