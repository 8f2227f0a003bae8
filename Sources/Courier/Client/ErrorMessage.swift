import Foundation
import HTTPTypes

/// Finds a human-readable message in an error response body.
enum ErrorMessage {
    /// The first string among the JSON body's `message`, `error_description`, `detail`, `error`,
    /// `title` fields (or `error.message`), when the body is a JSON object.
    static func extract(from body: Data, head: HTTPResponse) -> String? {
        guard !body.isEmpty, body.count <= BodyReading.errorPrefixLimit, body.first == UInt8(ascii: "{"),
              let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        for key in ["message", "error_description", "detail", "error", "title", "msg"] {
            if let text = object[key] as? String, !text.isEmpty { return String(text.prefix(300)) }
            if let nested = object[key] as? [String: Any], let text = nested["message"] as? String { return String(text.prefix(300)) }
        }
        return nil
    }
}
