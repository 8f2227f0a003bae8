import Foundation

extension Redaction {
    /// Body fields that hold secrets although their names match no rule of
    /// ``isSensitive(name:)`` or ``QueryNames/standard``.
    package static let secretBodyFieldNames: Set<String> = ["otp", "pin", "cvv", "cvc", "private_key", "privatekey", "client_assertion"]
    /// Body fields whose names look secret but hold none (OAuth's `token_type`, `expires_in`…).
    package static let publicBodyFieldNames: Set<String> = ["token_type", "token_type_hint", "expires_in", "refresh_expires_in", "session_state"]

    /// Whether a JSON member or form field named `name` holds a secret: a name
    /// ``QueryNames/standard`` (`ticket`, `sign`, `jwt`, `access_token`…) or ``isSensitive(name:)``
    /// calls secret, one of ``secretBodyFieldNames``, or one of `extra` (lowercased) — unless it
    /// is one of ``publicBodyFieldNames`` and not in `extra`. One rule for logs and cassettes.
    package static func isSecretBodyField(_ name: String, extra: Set<String> = []) -> Bool {
        let lower = name.lowercased()
        if extra.contains(lower) { return true }
        if publicBodyFieldNames.contains(lower) { return false }
        return secretBodyFieldNames.contains(lower) || QueryNames.standard.contains(name)
    }

    /// Hides secret values in a body shown as text (a log line, an error's description): JSON
    /// members and form fields whose names ``isSecretBodyField(_:extra:)`` calls secret
    /// (`password`, `token`, `ticket`, `sign`, `jwt`…, the rule cassettes use) or that are in
    /// `extra`. A secret member's whole value goes, an array or object included.
    ///
    /// Shown bodies are prefixes (``LoggingMiddleware`` shows the first `maxBodyBytes`, errors
    /// the first 200 bytes), often cut mid-document, so they are scanned rather than parsed: a
    /// JSON parser would refuse them.
    package enum BodyText {
        // "name" : "value" | number | true/false/null | the start of an array or object (a value
        // cut by truncation is matched too).
        private static let jsonMember = try! NSRegularExpression(pattern: #""((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"?|[\[{]|[^,}\]\s]+)"#)
        // name=value pairs of a form body (the first after any leading space or byte-order mark).
        private static let formField = try! NSRegularExpression(pattern: #"(?:^[\s\x{FEFF}]*|&)([^=&\s]+)=([^&]*)"#)

        package static func redact(_ text: String, extra: Set<String> = []) -> String {
            let trimmed = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }
            let lowered = Set(extra.map { $0.lowercased() })
            // Form fields first, unless the text is JSON (a form value ends at `&`, whatever
            // quotes it holds); then JSON members wherever they are — also after a prefix (a
            // byte-order mark, `)]}'`) or in text around them.
            let isJSON = trimmed.first == "{" || trimmed.first == "["
            var redacted = text
            if !isJSON, text.contains("=") {
                redacted = redact(redacted, expression: formField, isJSON: false, extra: lowered)
            }
            if redacted.contains("\"") {
                redacted = redact(redacted, expression: jsonMember, isJSON: true, extra: lowered)
            }
            return redacted
        }

        /// Only the JSON-member pass of ``redact(_:extra:)``: for text known to hold JSON (a
        /// recorded body that does not parse as one document), whose `&…=` runs are not form
        /// fields.
        package static func redactJSONMembers(_ text: String, extra: Set<String> = []) -> String {
            redact(text, expression: jsonMember, isJSON: true, extra: Set(extra.map { $0.lowercased() }))
        }

        /// One pass: the value of each match of `expression` whose name is secret replaced.
        private static func redact(_ text: String, expression: NSRegularExpression, isJSON: Bool, extra lowered: Set<String>) -> String {
            let source = text as NSString
            var output = ""
            var cursor = 0
            for match in expression.matches(in: text, range: NSRange(location: 0, length: source.length)) {
                // A member inside a value already redacted.
                guard match.range.location >= cursor else { continue }
                let nameRange = match.range(at: 1)
                var valueRange = match.range(at: 2)
                var name = source.substring(with: nameRange)
                if !isJSON { name = name.removingPercentEncoding ?? name }
                guard isSecretBodyField(name, extra: lowered) else { continue }
                if isJSON, valueRange.length == 1, let open = source.substring(with: valueRange).utf16.first, open == 0x5B || open == 0x7B {
                    valueRange.length = Self.nestedLength(in: source, from: valueRange.location)
                }
                output += source.substring(with: NSRange(location: cursor, length: valueRange.location - cursor))
                output += isJSON ? "\"\(placeholder)\"" : placeholder
                cursor = valueRange.location + valueRange.length
            }
            guard cursor > 0 else { return text }
            return output + source.substring(from: cursor)
        }

        /// The length of the array or object that starts at `start`, up to its closing bracket
        /// (brackets inside strings do not count), or to the end of a body cut before it.
        private static func nestedLength(in source: NSString, from start: Int) -> Int {
            var depth = 0
            var inString = false
            var escaped = false
            var index = start
            while index < source.length {
                let unit = source.character(at: index)
                index += 1
                if inString {
                    if escaped { escaped = false } else if unit == 0x5C { escaped = true } else if unit == 0x22 { inString = false }
                    continue
                }
                switch unit {
                case 0x22: inString = true
                case 0x5B, 0x7B: depth += 1
                case 0x5D, 0x7D:
                    depth -= 1
                    if depth == 0 { return index - start }
                default: break
                }
            }
            return index - start
        }
    }
}
