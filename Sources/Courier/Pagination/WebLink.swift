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
            var parameters: [String: String] = [:]
            // Parameters: `; name=value` or `; name="quoted, value"`, up to the next top-level comma.
            while true {
                rest = rest.drop { $0 == " " || $0 == "\t" }
                guard rest.first == ";" else { break }
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                let nameEnd = rest.firstIndex { $0 == "=" || $0 == ";" || $0 == "," } ?? rest.endIndex
                let name = rest[..<nameEnd].trimmingSpacesAndTabs().lowercased()
                rest = rest[nameEnd...]
                var parameterValue = ""
                if rest.first == "=" {
                    rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                    if rest.first == "\"" {
                        rest = rest.dropFirst()
                        var escaped = false
                        var end = rest.endIndex
                        for index in rest.indices {
                            let character = rest[index]
                            if escaped { parameterValue.append(character); escaped = false }
                            else if character == "\\" { escaped = true }
                            else if character == "\"" { end = index; break }
                            else { parameterValue.append(character) }
                        }
                        rest = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[rest.endIndex...]
                    } else {
                        let valueEnd = rest.firstIndex { $0 == ";" || $0 == "," } ?? rest.endIndex
                        parameterValue = String(rest[..<valueEnd].trimmingSpacesAndTabs())
                        rest = rest[valueEnd...]
                    }
                }
                if !name.isEmpty, parameters[name] == nil { parameters[name] = parameterValue }
            }
            let relations = (parameters["rel"] ?? "").lowercased().split(separator: " ").map(String.init)
            links.append(WebLink(target: target, relations: relations, parameters: parameters))
            // Skip anything up to the next link.
            if let comma = rest.firstIndex(of: ",") { rest = rest[comma...] } else { return links }
        }
    }
}
