import Foundation

extension LoggingMiddleware {
    /// Hides secret values in logged bodies: JSON members and form fields whose names look
    /// secret (``Redaction/isSensitive(name:)``: `password`, `token`, `secret`…) or are configured.
    enum BodyRedaction {
        // "name" : "value" | number | true/false/null (a value cut by truncation is matched too).
        private static let jsonMember = try! NSRegularExpression(pattern: #""((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)"#)
        // name=value pairs of a form body.
        private static let formField = try! NSRegularExpression(pattern: #"(?:^|&)([^=&\s]+)=([^&]*)"#)

        static func redact(_ text: String, extra: Set<String>) -> String {
            let trimmed = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
            let isJSON = trimmed.first == "{" || trimmed.first == "["
            let expression = isJSON ? jsonMember : formField
            if !isJSON && (text.contains(" ") || !text.contains("=")) { return text }
            let lowered = Set(extra.map { $0.lowercased() })
            let source = text as NSString
            var output = ""
            var cursor = 0
            for match in expression.matches(in: text, range: NSRange(location: 0, length: source.length)) {
                let nameRange = match.range(at: 1)
                let valueRange = match.range(at: 2)
                var name = source.substring(with: nameRange)
                if !isJSON { name = name.removingPercentEncoding ?? name }
                guard Redaction.isSensitive(name: name) || lowered.contains(name.lowercased()) else { continue }
                output += source.substring(with: NSRange(location: cursor, length: valueRange.location - cursor))
                output += isJSON ? "\"\(Redaction.placeholder)\"" : Redaction.placeholder
                cursor = valueRange.location + valueRange.length
            }
            guard cursor > 0 else { return text }
            return output + source.substring(from: cursor)
        }
    }
}
