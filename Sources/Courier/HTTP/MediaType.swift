import Foundation

/// A media type (`type/subtype; parameters`): the one value Courier uses to parse a
/// `Content-Type`, to match it against what a request accepts, and to guess a file's type.
///
/// ```swift
/// let received = MediaType("Application/JSON; charset=UTF-8")!   // application/json; charset=utf-8
/// received.matches(.json)                            // true: parameters not asked for are ignored
/// received.matches(MediaType("application/*")!)      // true
/// received.matches(MediaType("text/*")!)             // false
/// MediaType.infer(fileName: "report.pdf")            // application/pdf
/// ```
///
/// Type, subtype and parameter names are case-insensitive and kept lowercased; parameter
/// values are compared case-insensitively too (`charset=UTF-8` is `charset=utf-8`), quotes
/// removed.
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The top-level type, lowercased: `application`, or `*` in a pattern.
    public var type: String
    /// The subtype, lowercased: `json`, or `*` in a pattern.
    public var subtype: String
    /// The parameters, names and values lowercased, quotes removed.
    public var parameters: [String: String]

    /// Creates a media type from its parts.
    public init(type: String, subtype: String, parameters: [String: String] = [:]) {
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = Dictionary(parameters.map { ($0.key.lowercased(), $0.value.lowercased()) }, uniquingKeysWith: { $1 })
    }

    /// Parses a `Content-Type` value; `nil` when it is not `type/subtype`.
    public init?(_ text: String) {
        let essenceEnd = text.utf8.firstIndex(of: UInt8(ascii: ";")) ?? text.endIndex
        let essence = text[..<essenceEnd].trimmingSpacesAndTabs()
        let halves = essence.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty,
              !halves[1].contains("/"), !essence.contains(" ") else { return nil }
        var parameters: [String: String] = [:]
        // `; name=value` or `; name="quoted; value"` (HTTPParameters, the one reader of such lists).
        for item in HTTPParameters(text[essenceEnd...], separator: ";") {
            guard var value = item.value, !item.name.isEmpty else { continue }
            // Lenient with servers that quote twice (`charset=""utf-8""`): quotes left around
            // the value are dropped, as before the shared reader.
            value = value.drop { $0 == "\"" }
            while value.last == "\"" { value = value.dropLast() }
            parameters[item.name.lowercased()] = value.lowercased()
        }
        self.init(type: String(halves[0]), subtype: String(halves[1]), parameters: parameters)
    }

    /// `application/json`.
    public static let json = MediaType(type: "application", subtype: "json")
    /// `text/plain`.
    public static let plainText = MediaType(type: "text", subtype: "plain")
    /// `application/octet-stream`: bytes of no known type.
    public static let octetStream = MediaType(type: "application", subtype: "octet-stream")
    /// `*/*`: the pattern every media type matches.
    public static let any = MediaType(type: "*", subtype: "*")

    /// `type/subtype`, without parameters.
    public var essence: String { "\(type)/\(subtype)" }

    /// `type/subtype` and the parameters in name order: `text/plain; charset=utf-8`.
    public var description: String {
        parameters.keys.sorted().reduce(essence) { $0 + "; \($1)=\(parameters[$1]!)" }
    }

    /// Whether this media type is one `pattern` accepts: `*` in the pattern's type or subtype
    /// matches anything, and each parameter the pattern names must have the same value here
    /// (parameters the pattern does not name are ignored).
    public func matches(_ pattern: MediaType) -> Bool {
        (pattern.type == "*" || pattern.type == type)
            && (pattern.subtype == "*" || pattern.subtype == subtype)
            && pattern.parameters.allSatisfy { parameters[$0.key] == $0.value }
    }

    /// Whether this is JSON: `application/json`, or any type with the `+json` structured-syntax
    /// suffix (`application/problem+json`, `application/vnd.api+json`).
    public var isJSON: Bool { (type == "application" && subtype == "json") || subtype.hasSuffix("+json") }

    /// Whether this media type is the same as `other` once parameters are set aside.
    public func hasSameEssence(as other: MediaType) -> Bool { type == other.type && subtype == other.subtype }

    // MARK: Guessing

    /// The media type of a file: from its name's extension, else from its first bytes (JPEG,
    /// PNG, GIF, TIFF, WebP, PDF, ZIP), else `text/plain` for short valid UTF-8, else
    /// `application/octet-stream`.
    public static func infer<Bytes: Collection<UInt8>>(fileName: String?, data: Bytes?) -> MediaType {
        if let fileName, let type = forExtension(of: fileName) { return type }
        if let data {
            if let type = sniff(Array(data.prefix(16))) { return type }
            if data.count > 0, data.count <= 4096, String(validating: Array(data), as: UTF8.self) != nil {
                return .plainText
            }
        }
        return .octetStream
    }

    /// The content type for a file name alone.
    /// The media type of a file from its name alone.
    public static func infer(fileName: String?) -> MediaType {
        infer(fileName: fileName, data: [UInt8]?.none)
    }

    /// The content type for a file name's extension, if it is a known one.
    /// The media type for a file name's extension (`report.PDF` → `application/pdf`), if known.
    public static func forExtension(of fileName: String) -> MediaType? {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        return byExtension[fileName[fileName.index(after: dot)...].lowercased()].flatMap(MediaType.init)
    }

    static func sniff(_ head: [UInt8]) -> MediaType? {
        sniffedName(head).flatMap(MediaType.init)
    }

    private static func sniffedName(_ head: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8]) -> Bool { head.starts(with: prefix) }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
        if starts(Array("%PDF".utf8)) { return "application/pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        if head.count >= 12, starts(Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif",
        "tif": "image/tiff", "tiff": "image/tiff", "webp": "image/webp", "heic": "image/heic",
        "svg": "image/svg+xml", "pdf": "application/pdf", "txt": "text/plain", "csv": "text/csv",
        "html": "text/html", "htm": "text/html", "json": "application/json", "xml": "application/xml",
        "zip": "application/zip", "gz": "application/gzip", "mp4": "video/mp4", "mov": "video/quicktime",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav",
    ]
}
