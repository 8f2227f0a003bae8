/// Guesses a content type from a file name's extension or from the first bytes of a file.
public enum MIMEType {
    /// The content type for a file name or for bytes: the extension wins, then magic bytes
    /// (JPEG, PNG, GIF, TIFF, PDF, ZIP, WebP), then UTF-8 text, then
    /// `application/octet-stream`.
    public static func infer<Bytes: Collection<UInt8>>(fileName: String?, data: Bytes?) -> String {
        if let fileName, let type = forExtension(of: fileName) { return type }
        if let data {
            if let type = sniff(Array(data.prefix(16))) { return type }
            if data.count > 0, data.count <= 4096, String(validating: Array(data), as: UTF8.self) != nil {
                return "text/plain"
            }
        }
        return "application/octet-stream"
    }

    /// The content type for a file name alone.
    public static func infer(fileName: String?) -> String {
        infer(fileName: fileName, data: [UInt8]?.none)
    }

    /// The content type for a file name's extension, if it is a known one.
    public static func forExtension(of fileName: String) -> String? {
        guard let dot = fileName.lastIndex(of: ".") else { return nil }
        return byExtension[fileName[fileName.index(after: dot)...].lowercased()]
    }

    static func sniff(_ head: [UInt8]) -> String? {
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
