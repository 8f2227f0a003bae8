import Foundation
import HTTPTypes

/// One link of an RFC 8288 `Link` header: `<https://api.example.com/items?page=2>; rel="next"`.
public struct WebLink: Sendable, Hashable {
    /// The target, as written (it may be relative).
    public var target: String
    /// The relation types (`rel`), lowercased; a link can have several (`rel="next last"`).
    public var relations: [String]
    /// The other parameters, names lowercased, quotes removed.
    public var parameters: [String: String]

    /// Creates a link.
    public init(target: String, relations: [String], parameters: [String: String] = [:]) {
        self.target = target
        self.relations = relations
        self.parameters = parameters
    }

    /// Parses every link in the `Link` header values of `fields` (several headers, or several
    /// comma-separated links in one). Malformed links are skipped.
    public static func parse(_ fields: HTTPFields) -> [WebLink] {
        fields[values: HTTPField.Name("Link")!].flatMap { parse($0) }
    }

    /// Parses the links in one `Link` header value.
    public static func parse(_ value: String) -> [WebLink] {
        var links: [WebLink] = []
        var rest = Substring(value)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard rest.first == "<", let close = rest.firstIndex(of: ">") else { return links }
            let target = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
            // Parameters: `; name=value` or `; name="quoted, value"`, up to the next comma
            // outside a quoted string (HTTPParameters, the one reader of such lists).
            var reader = HTTPParameters(rest, separator: ";", terminator: ",")
            var parameters: [String: String] = [:]
            while let item = reader.next() {
                let name = item.name.lowercased()
                if !name.isEmpty, parameters[name] == nil { parameters[name] = item.value.map(String.init) ?? "" }
            }
            let relations = (parameters["rel"] ?? "").lowercased().split(separator: " ").map(String.init)
            links.append(WebLink(target: target, relations: relations, parameters: parameters))
            guard let comma = reader.terminatorIndex else { return links }
            rest = rest[comma...]
        }
    }
}
