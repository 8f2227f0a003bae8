import Courier
import Foundation
import HTTPTypes

/// Recorded exchanges, as written by ``RecordingTransport`` and read by ``ReplayTransport``:
/// a JSON file a person can read and edit.
///
/// ```json
/// {"version": 1, "exchanges": [{
///   "request":  {"method": "GET", "url": "https://api.example.com/users/1?api_key=<redacted>",
///                "headers": [["Authorization", "<redacted>"]], "body": ""},
///   "response": {"status": 200, "headers": [["Content-Type", "application/json"]],
///                "body": "{\"id\":1}", "bodyEncoding": "utf8"}}]}
/// ```
public struct Cassette: Codable, Sendable, Equatable {
    /// One request and its response.
    public struct Exchange: Codable, Sendable, Equatable {
        /// The request, secrets redacted.
        public var request: RecordedMessage
        /// The response, secrets redacted.
        public var response: RecordedMessage

        /// Creates an exchange (to write a cassette by hand).
        public init(request: RecordedMessage, response: RecordedMessage) {
            self.request = request
            self.response = response
        }
    }

    /// A request or a response.
    public struct RecordedMessage: Codable, Sendable, Equatable {
        /// The method (requests).
        public var method: String?
        /// The absolute URL with sensitive query values redacted (requests).
        public var url: String?
        /// The status code (responses).
        public var status: Int?
        /// The header fields, in order, sensitive values redacted.
        public var headers: [[String]]
        /// The body: UTF-8 text, or base64 when it is not valid UTF-8.
        public var body: String
        /// `"utf8"` or `"base64"`.
        public var bodyEncoding: String?

        /// Creates a message (to write a cassette by hand).
        public init(method: String? = nil, url: String? = nil, status: Int? = nil, headers: [[String]] = [],
                    body: String = "", bodyEncoding: String? = nil) {
            self.method = method
            self.url = url
            self.status = status
            self.headers = headers
            self.body = body
            self.bodyEncoding = bodyEncoding
        }

        /// The body's bytes.
        public var bodyData: Data {
            bodyEncoding == "base64" ? (Data(base64Encoded: body) ?? Data()) : Data(body.utf8)
        }

        /// The header fields: each `[name, value]` pair with a valid name, up to the 65,534
        /// fields an `HTTPFields` can hold (a hostile cassette's further pairs are left out
        /// here; ``ReplayTransport`` refuses such an exchange).
        public var headerFields: HTTPFields {
            var fields = HTTPFields()
            for pair in headers where pair.count == 2 {
                if let name = HTTPField.Name(pair[0]), !fields.appendIfRoom(HTTPField(name: name, value: pair[1])) { break }
            }
            return fields
        }

        static func encodeBody(_ data: Data) -> (String, String) {
            if let text = String(data: data, encoding: .utf8) { return (text, "utf8") }
            return (data.base64EncodedString(), "base64")
        }

        static func encodeHeaders(_ fields: HTTPFields, redacting extra: Set<HTTPField.Name>) -> [[String]] {
            Redaction.redact(fields, extra: extra).map { [$0.name.rawName, $0.value] }
        }
    }

    /// The format's version.
    public var version: Int = 1
    /// The exchanges, in the order they happened.
    public var exchanges: [Exchange] = []

    /// An empty cassette.
    public init(exchanges: [Exchange] = []) { self.exchanges = exchanges }

    /// Reads a cassette file.
    public init(contentsOf url: URL) throws {
        self = try JSONDecoder().decode(Cassette.self, from: Data(contentsOf: url))
    }

    /// Writes the cassette as pretty-printed JSON.
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    /// The key requests are matched by: the method and the URL with secrets redacted (so a
    /// replayed request matches whatever key or token it carries).
    static func key(method: String, url: String, alsoRedacting names: Set<String> = []) -> String {
        "\(method) \(names.isEmpty ? Redaction.redactQuery(inTarget: url) : Redaction.QueryNames.standard.adding(names).redact(target: url))"
    }

    /// The names of the query parameters whose value is the redaction placeholder.
    static func redactedNames(in url: String) -> Set<String> {
        guard let mark = url.firstIndex(of: "?") else { return [] }
        var names: Set<String> = []
        for item in url[url.index(after: mark)...].split(separator: "&") {
            guard let eq = item.firstIndex(of: "="), item[item.index(after: eq)...] == Redaction.placeholder else { continue }
            let name = String(item[..<eq])
            names.insert(name.removingPercentEncoding ?? name)
        }
        return names
    }

    static func url(of request: HTTPRequest) -> String {
        request.urlString
    }
}
