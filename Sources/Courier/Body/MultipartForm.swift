import Foundation

/// A `multipart/form-data` body (RFC 7578): fields and files, each with its own name, file name
/// and content type.
///
/// Files are read from disk when the body is sent, never loaded whole: `AsyncHTTPClientTransport`
/// streams the parts one after the other; `URLSessionTransport` writes the form to a temporary
/// file first (it can only stream a file) and uploads that, removing it when the task ends. The
/// total length is computed up front so `Content-Length` is set. The boundary is random unless
/// you pass one.
///
/// ```swift
/// var form = MultipartForm()
/// form.append("Ada", name: "name")
/// form.append(jpegData, name: "avatar", fileName: "me.jpg", contentType: "image/jpeg")
/// try form.appendFile(at: videoURL, name: "video")        // type inferred from the extension
/// let request = Request<Upload>(method: .post, path: "/upload", body: .multipart(form))
/// ```
public struct MultipartForm: Sendable {
    /// One part of the form.
    public struct Part: Sendable {
        /// Where a part's bytes come from.
        public enum Content: Sendable {
            /// Bytes in memory.
            case data(Data)
            /// A file, read in chunks when the body is sent.
            case file(URL)
        }

        /// The form field name (`name=` in `Content-Disposition`).
        public var name: String
        /// The file name (`filename=`), for file parts.
        public var fileName: String?
        /// The part's `Content-Type`, if any.
        public var contentType: String?
        /// The bytes.
        public var content: Content

        /// Creates a part.
        public init(name: String, fileName: String? = nil, contentType: String? = nil, content: Content) {
            self.name = name
            self.fileName = fileName
            self.contentType = contentType
            self.content = content
        }
    }

    /// The boundary between parts.
    public let boundary: String
    /// The parts, in order.
    public private(set) var parts: [Part] = []

    /// Creates an empty form with a random boundary (or the one given, for reproducible tests).
    public init(boundary: String? = nil) {
        self.boundary = boundary ?? "courier-" + (0..<4).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined()
        self.boundaryIsRandom = boundary == nil
    }

    /// Whether the boundary is the random default, which ``validate()`` need not check.
    private let boundaryIsRandom: Bool

    /// The `Content-Type` header value: `multipart/form-data; boundary=…` (quoted when the
    /// boundary has characters a token cannot have, such as a space).
    public var contentType: String {
        let isToken = boundary.utf8.allSatisfy { Self.isTokenByte($0) }
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    /// Checks the form before it is sent: no part's content type holds CR, LF or NUL; and for a
    /// boundary given to ``init(boundary:)``, 1 to 70 of the
    /// characters RFC 2046 allows in a boundary (letters, digits, `'()+_,-./:=?`, and spaces but
    /// not at the end), and no in-memory part that contains the delimiter `--boundary` at the
    /// start of a line. (A file part is read as it is sent and is not searched; the random
    /// default boundary has 128 bits and does not occur by chance.)
    func validate() throws {
        for part in parts {
            guard let type = part.contentType else { continue }
            do {
                try HeaderValidation.validate(value: type, name: "Content-Type")
            } catch {
                throw MultipartFormError(reason: "the part '\(Self.escape(String(part.name.prefix(80))))' has a content type with CR, LF or NUL, which would end its headers early")
            }
        }
        guard !boundaryIsRandom else { return }
        let bytes = Array(boundary.utf8)
        guard (1...70).contains(bytes.count), bytes.allSatisfy(Self.isBoundaryByte), bytes.last != UInt8(ascii: " ") else {
            throw MultipartFormError(reason: "the boundary '\(boundary.prefix(80))' is not one RFC 2046 allows: 1 to 70 letters, digits, spaces (not last) or '()+_,-./:=?")
        }
        let delimiter = Data("\r\n--\(boundary)".utf8)
        for part in parts {
            guard case .data(let data) = part.content else { continue }
            // Searched in place (no copy of the part): at its start, which follows its headers'
            // blank line, and after any line break within it.
            if data.starts(with: delimiter.dropFirst(2)) || data.range(of: delimiter) != nil {
                throw MultipartFormError(reason: "the part '\(part.name.prefix(80))' contains the boundary '\(boundary.prefix(80))' at the start of a line, which would end it early; use another boundary (or the random default)")
            }
        }
    }

    private static func isBoundaryByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "'()+_,-./:=? ".utf8.contains(byte)
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Adds a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, content: .data(Data(value.utf8))))
    }

    /// Adds bytes as a file part. The content type is inferred from `fileName` or the bytes when
    /// not given.
    public mutating func append(_ data: Data, name: String, fileName: String? = nil, contentType: String? = nil) {
        let type = contentType ?? MediaType.infer(fileName: fileName, data: data).description
        parts.append(Part(name: name, fileName: fileName ?? name, contentType: type, content: .data(data)))
    }

    /// Adds a file part, read from disk when the body is sent. Throws if the file cannot be read.
    public mutating func appendFile(at url: URL, name: String, fileName: String? = nil, contentType: String? = nil) throws {
        _ = try FileChunks.size(of: url)
        let type = contentType ?? MediaType.infer(fileName: url.lastPathComponent).description
        parts.append(Part(name: name, fileName: fileName ?? url.lastPathComponent, contentType: type, content: .file(url)))
    }

    /// Adds a part as it is.
    public mutating func append(_ part: Part) { parts.append(part) }

    /// The body as ordered segments (headers, bytes and files), for streaming.
    func segments() -> [BodySegment] {
        var segments: [BodySegment] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
            if let fileName = part.fileName { head += "; filename=\"\(Self.escape(fileName))\"" }
            head += "\r\n"
            if let type = part.contentType { head += "Content-Type: \(Self.stripLineBreaks(type))\r\n" }
            head += "\r\n"
            segments.append(.bytes(Array(head.utf8)))
            switch part.content {
            case .data(let data): segments.append(.bytes(Array(data)))
            case .file(let url): segments.append(.file(url))
            }
            segments.append(.bytes(Array("\r\n".utf8)))
        }
        segments.append(.bytes(Array("--\(boundary)--\r\n".utf8)))
        return segments
    }

    /// Quotes a name for `Content-Disposition` (RFC 7578 §4.2: `"` and CR/LF are percent-encoded;
    /// NUL too, which parsers in C stop at).
    static func escape(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for ch in value.unicodeScalars {
            switch ch {
            case "\"": out += "%22"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case "\0": out += "%00"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    static func stripLineBreaks(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })
    }
}
