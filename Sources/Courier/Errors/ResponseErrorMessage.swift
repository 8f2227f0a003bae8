import Foundation
import HTTPTypes

/// Finds a human-readable message in an error response body.
enum ResponseErrorMessage {
    /// The first string among the JSON body's `message`, `error_description`, `detail`, `error`,
    /// `title` fields (or `error.message`), when the body is a JSON object.
    static func extract(from body: Data, head: HTTPResponse) -> String? {
        // After a UTF-8 byte-order mark, which some servers put before their JSON.
        let json = body.starts(with: [0xEF, 0xBB, 0xBF]) ? body.dropFirst(3) : body[...]
        guard !json.isEmpty, json.count <= BodyReading.errorPrefixLimit, json.first == UInt8(ascii: "{"),
              let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else { return nil }
        for key in ["message", "error_description", "detail", "error", "title", "msg"] {
            if let text = object[key] as? String, !text.isEmpty { return bounded(text) }
            if let nested = object[key] as? [String: Any], let text = nested["message"] as? String { return bounded(text) }
        }
        return nil
    }

    /// At most 300 characters and 1 KiB: a character can be any number of bytes (a letter
    /// with a thousand combining marks is one).
    private static func bounded(_ text: String) -> String {
        let characters = text.prefix(300)
        guard characters.utf8.count > 1_024 else { return String(characters) }
        return String(decoding: characters.utf8.prefix(1_020), as: UTF8.self)   // a cut scalar becomes U+FFFD (3 bytes)
    }
}
